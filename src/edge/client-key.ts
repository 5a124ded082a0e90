import { normalizeIp } from '@nestjs/throttler';
import type { Request } from 'express';
import { isIP } from 'node:net';

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

const KEY = Symbol('clientKey');

/**
 * Who a request counts against: its client address as Express resolves it (`req.ip`: the socket's
 * address unless `trust proxy` is set, else the forwarded one, its port dropped), IPv4-mapped IPv6
 * as IPv4 and other IPv6 as its /64. A forwarded value that is not an address counts against the
 * socket's address (the proxy), never against a key of its own. Computed once per request (the
 * early refusal, the throttler's tracker and the policy all ask), then kept on it.
 */
export function clientKey(request: Pick<Request, 'ip' | 'socket'>): string {
  const keyed = request as typeof request & { [KEY]?: string };
  if (keyed[KEY] !== undefined) return keyed[KEY];
  const address =
    (request.ip === undefined ? undefined : addressOf(request.ip)) ?? request.socket?.remoteAddress;
  keyed[KEY] = address ? normalizeIp(address) : 'unknown';
  return keyed[KEY];
}
