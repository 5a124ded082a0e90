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

/** What the address is read from: Express's `req.ip` once Express has the request, the socket's. */
type AddressedRequest = Pick<Request, 'socket'> & { ip?: string };

/** What is known of a request's client, resolved once: its address, then its key. */
interface Client {
  address: string | undefined;
  key?: string;
}

/** Kept beside each request, not on it: no slot is added to Node's or Express's objects. */
const clients = new WeakMap<AddressedRequest, Client>();

function clientOf(request: AddressedRequest): Client {
  let client = clients.get(request);
  if (client === undefined) {
    const forwarded = request.ip === undefined ? undefined : addressOf(request.ip);
    client = { address: forwarded ?? request.socket?.remoteAddress };
    clients.set(request, client);
  }
  return client;
}

/**
 * The client's address as Express resolves it (`req.ip`: the socket's address unless `trust proxy`
 * is set, else the forwarded one, its port dropped); a forwarded value that is not an address gives
 * the socket's address (the proxy). Resolved once per request, then kept beside it: the key below and
 * the request log both read it, and `req.ip` parses X-Forwarded-For each time it is read.
 */
export const clientAddress = (request: AddressedRequest): string | undefined =>
  clientOf(request).address;

/**
 * Who a request counts against: its client address (above), IPv4-mapped IPv6 as IPv4 and other
 * IPv6 as its /64, so no header can mint a budget of its own. Computed once per request (the early
 * refusal, the throttler's tracker and the policy all ask), then kept beside it.
 */
export function clientKey(request: AddressedRequest): string {
  const client = clientOf(request);
  client.key ??= client.address ? normalizeIp(client.address) : 'unknown';
  return client.key;
}
