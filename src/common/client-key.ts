import { normalizeIp } from '@nestjs/throttler';
import type { Request } from 'express';
import { isIP } from 'node:net';
import { trustProxyTestOf } from './express-internals';

/** `a.b.c.d:port` (IPv4 with a port) or `[v6]` with an optional `:port`, as proxies may forward. */
const WITH_PORT =
  /^(?:(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}|\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\](?::\d{1,5})?)$/;

/**
 * The address in a forwarded value: as it is, or without the port a proxy appended
 * (`203.0.113.7:41234`, `[2001:db8::1]:443`); undefined when it is not an IP address at all
 * (`10.9.9.09`, `unknown`, a host name), so no header can mint a budget of its own.
 */
function addressOf(value: string): string | undefined {
  const zone = value.indexOf('%');
  if (isIP(zone === -1 ? value : value.slice(0, zone)) !== 0) return value;
  const match = WITH_PORT.exec(value);
  const address = match?.[1] ?? match?.[2];
  return address !== undefined && isIP(address.split('%')[0]) !== 0 ? address : undefined;
}

/** What the address is read from: Express's `req.ip` once Express has the request, the socket's. */
type AddressedRequest = Pick<Request, 'socket'> & {
  ip?: string;
  app?: Parameters<typeof trustProxyTestOf>[0]['app'];
};

/** What is known of a request's client, resolved once: its address, then its key. */
interface Client {
  address: string | undefined;
  key?: string;
}

/**
 * The last request resolved and its client. The throttler's tracker, the policy and the request
 * log ask in turn about the request being handled, so one is enough; another request in between
 * only means resolving again (the same inputs give the same client). Kept here, not on the request
 * (no slot on Node's or Express's objects), and not in a WeakMap: an entry per request made each
 * one cost more than resolving it (bench/README.md, "Where the time goes").
 */
let lastRequest: AddressedRequest | undefined;
let lastClient: Client = { address: undefined };

function clientOf(request: AddressedRequest): Client {
  if (request === lastRequest) return lastClient;
  const ip = expressIp(request);
  const forwarded = ip === undefined ? undefined : addressOf(ip);
  lastClient = { address: forwarded ?? request.socket?.remoteAddress };
  lastRequest = request;
  return lastClient;
}

/**
 * `req.ip`, which is the peer's address unless Express trusts the peer as a proxy (proxy-addr
 * trims the forwarded chain at the first hop it does not trust, and hop 0 is the peer): only then
 * is it read, since Express's getter parses X-Forwarded-For on each read.
 */
function expressIp(request: AddressedRequest): string | undefined {
  const peer = request.socket?.remoteAddress;
  const trusts = peer === undefined ? undefined : trustProxyTestOf(request);
  return trusts !== undefined && !trusts(peer!, 0) ? peer : request.ip;
}

/**
 * The client's address as Express resolves it (`req.ip`: the socket's address unless `trust proxy`
 * is set, else the forwarded one, its port dropped); a forwarded value that is not an address gives
 * the socket's address (the proxy). Resolved once for the request being handled (clientOf): the key
 * below and the request log both read it, and `req.ip` parses X-Forwarded-For each time it is read.
 */
export const clientAddress = (request: AddressedRequest): string | undefined =>
  clientOf(request).address;

/**
 * Who a request counts against: its client address (above), IPv4-mapped IPv6 as IPv4 and other
 * IPv6 as its /64, so no header can mint a budget of its own. Computed once for the request being
 * handled (the early refusal, the throttler's tracker and the policy all ask).
 */
export function clientKey(request: AddressedRequest): string {
  const client = clientOf(request);
  client.key ??= client.address ? normalizeIp(client.address) : 'unknown';
  return client.key;
}
