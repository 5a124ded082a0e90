import { normalizeIp } from '@nestjs/throttler';
import type { Request } from 'express';

/**
 * Who a request counts against: its client address as Express resolves it (`req.ip`: the socket's
 * address unless `trust proxy` is set), IPv4-mapped IPv6 as IPv4 and other IPv6 as its /64.
 */
export function clientKey(request: Pick<Request, 'ip' | 'socket'>): string {
  const address = request.ip ?? request.socket?.remoteAddress;
  return address ? normalizeIp(address) : 'unknown';
}
