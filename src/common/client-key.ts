import { normalizeIp } from '@nestjs/throttler';
import type { Request } from 'express';
import { isIP } from 'node:net';
import { type ExpressSettings, trustProxyTestOf } from './platform-internals';

/** `a.b.c.d:port` (IPv4 with a port) or `[v6]` with an optional `:port`, as proxies may forward. */
const WITH_PORT =
  /^(?:(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}|\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\](?::\d{1,5})?)$/;

/**
 * Drops a port a proxy appended; undefined for anything not an IP address (`10.9.9.09`, `unknown`,
 * a host name), so no header can mint a budget of its own.
 */
function addressOf(value: string): string | undefined {
  const zone = value.indexOf('%');
  if (isIP(zone === -1 ? value : value.slice(0, zone)) !== 0) return value;
  const match = WITH_PORT.exec(value);
  const address = match?.[1] ?? match?.[2];
  return address !== undefined && isIP(address.split('%')[0]) !== 0 ? address : undefined;
}

type AddressedRequest = Pick<Request, 'socket'> & { ip?: string; app?: ExpressSettings };

/**
 * The client's address as Express resolves it; a forwarded non-address gives the proxy's. Resolved
 * on each ask, kept nowhere: the last-request cache saved 50-70 ns of a request.
 */
export function clientAddress(request: AddressedRequest): string | undefined {
  const peer = request.socket?.remoteAddress;
  // `req.ip` is the peer's unless Express trusts the peer (hop 0), and only then is it read: its
  // getter parses X-Forwarded-For on each read.
  const trusts = peer === undefined ? undefined : trustProxyTestOf(request);
  const ip = trusts !== undefined && !trusts(peer!, 0) ? peer : request.ip;
  const forwarded = ip === undefined ? undefined : addressOf(ip);
  return forwarded ?? peer;
}

/** Who a request counts against: IPv4-mapped IPv6 as IPv4, other IPv6 as its /64. */
export function clientKey(request: AddressedRequest): string {
  const address = clientAddress(request);
  return address ? normalizeIp(address) : 'unknown';
}
