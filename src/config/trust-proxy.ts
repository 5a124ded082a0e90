import { isIP } from 'node:net';
import { ipv4Number, NAMED_RANGES, trustsEveryAddress } from './trusted-ranges';

/** Express's `trust proxy` setting; `false` means the socket's address is the client. */
export type TrustProxy = false | number | string[];

const OFF = new Set(['off', 'false', 'none']);
const MAX_HOPS = 32;

const TRUST_PROXY_RULE =
  'must be off, a hop count (0-32), or comma-separated proxy addresses or CIDRs ' +
  '(loopback, linklocal and uniquelocal name ranges)';
const EVERY_ADDRESS =
  'trusts every address, as true would (any client could name itself in X-Forwarded-For): ' +
  "list only the proxies' addresses or ranges";

const isNetmask = (text: string): boolean =>
  isIP(text) === 4 && /^1*0*$/.test(ipv4Number(text).toString(2).padStart(32, '0'));

function isProxyAddress(entry: string): boolean {
  if (Object.hasOwn(NAMED_RANGES, entry)) return true;
  const [address, range, extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (version === 4 ? 32 : 128);
  return version === 4 && isNetmask(range);
}

/** Every address, and an entry proxy-addr throws on. */
const isWholeSpace = (entry: string): boolean => /\/(0+|0\.0\.0\.0)$/.test(entry);

/**
 * `true` is refused on purpose: on a public API it lets any client name itself in X-Forwarded-For
 * and so dodge the daily limit; so is a list of ranges that trusts every address all the same.
 * A refusal is kept as the value, its reason (a string), so trustProxyProblem can say why.
 */
export function toTrustProxy({ value: raw }: { value: unknown }): unknown {
  if (typeof raw !== 'string') return raw;
  const value = raw.trim().toLowerCase();
  if (OFF.has(value)) return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_HOPS) return TRUST_PROXY_RULE;
    return hops === 0 ? false : hops;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  if (!entries.every(isProxyAddress)) return TRUST_PROXY_RULE;
  if (entries.some(isWholeSpace) || trustsEveryAddress(entries)) return EVERY_ADDRESS;
  return entries;
}

export function trustProxyProblem(value: unknown): string | undefined {
  if (value === false || typeof value === 'number' || Array.isArray(value)) return undefined;
  return typeof value === 'string' ? value : TRUST_PROXY_RULE;
}
