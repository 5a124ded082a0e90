import { isIPv4 } from 'node:net';

/**
 * Matches as Express's proxy-addr does, to refuse lists like `0.0.0.0/1,128.0.0.0/1` (`true` in
 * other words). proxy-addr matches IPv4-mapped addresses as IPv4: a mapped entry with a prefix of
 * 96 or more is an IPv4 range, with a shorter one it matches nothing.
 */

interface Span {
  first: bigint;
  last: bigint;
}

const IPV4_BITS = 32;
const IPV6_BITS = 128;
/** ::ffff:0:0/96: proxy-addr never matches these as IPv6. */
const MAPPED: Span = { first: 0xffffn << 32n, last: (0xffffn << 32n) | 0xffff_ffffn };

/** Express's named ranges (proxy-addr's IP_RANGES). */
export const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

export const ipv4Number = (text: string): bigint =>
  text.split('.').reduce((number, octet) => (number << 8n) | BigInt(octet), 0n);

/** Expects a valid address (net.isIPv6); a zone is dropped. */
function ipv6Number(text: string): bigint {
  const address = text.split('%')[0].replace(/(\d+\.\d+\.\d+\.\d+)$/, (ipv4) => {
    const number = ipv4Number(ipv4);
    return `${(number >> 16n).toString(16)}:${(number & 0xffffn).toString(16)}`;
  });
  // Without `::`, the eight groups are all there: no zeros to put in.
  const [head, tail] = address.split('::');
  const groupsOf = (part = '') => (part === '' ? [] : part.split(':'));
  const zeros = Array<string>(8 - groupsOf(head).length - groupsOf(tail).length).fill('0');
  const groups = [...groupsOf(head), ...zeros, ...groupsOf(tail)];
  return groups.reduce((number, group) => (number << 16n) | BigInt(`0x${group}`), 0n);
}

/** Assumes contiguous ones: trust-proxy.ts checks. */
const maskLength = (netmask: string): number =>
  ipv4Number(netmask).toString(2).replace(/0+$/, '').length;

function spanOf(address: bigint, prefix: number, bits: number): Span {
  const hostBits = BigInt(bits - prefix);
  const first = (address >> hostBits) << hostBits;
  return { first, last: first | ((1n << hostBits) - 1n) };
}

function placeEntry(entry: string, ipv4: Span[], ipv6: Span[]): void {
  const [address, range] = entry.split('/');
  if (isIPv4(address)) {
    const prefix =
      range === undefined ? IPV4_BITS : range.includes('.') ? maskLength(range) : +range;
    ipv4.push(spanOf(ipv4Number(address), prefix, IPV4_BITS));
    return;
  }
  const number = ipv6Number(address);
  const prefix = range === undefined ? IPV6_BITS : +range;
  const mapped = number >= MAPPED.first && number <= MAPPED.last;
  if (!mapped) ipv6.push(spanOf(number, prefix, IPV6_BITS));
  else if (prefix >= 96) ipv4.push(spanOf(number & 0xffff_ffffn, prefix - 96, IPV4_BITS));
}

function coverAll(spans: Span[], bits: number): boolean {
  let next = 0n;
  for (const { first, last } of [...spans].sort((a, b) => (a.first < b.first ? -1 : 1))) {
    if (first > next) return false;
    if (last + 1n > next) next = last + 1n;
  }
  return next === 1n << BigInt(bits);
}

/** Trusting every IPv4 or every IPv6 address lets whoever connects name any client. */
export function trustsEveryAddress(entries: string[]): boolean {
  const ipv4: Span[] = [];
  const ipv6: Span[] = [MAPPED];
  for (const entry of entries.flatMap((entry) => NAMED_RANGES[entry] ?? [entry]))
    placeEntry(entry, ipv4, ipv6);
  return coverAll(ipv4, IPV4_BITS) || coverAll(ipv6, IPV6_BITS);
}
