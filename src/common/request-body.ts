import type { IncomingMessage } from 'node:http';

/** Whether a request declares a body at all (RFC 9112 §6.3: a length or a transfer coding). */
export const hasBody = (request: IncomingMessage): boolean =>
  request.headers['transfer-encoding'] !== undefined ||
  (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');

/** Whether `request` declares a Content-Length over `limit` (one whose body is refused unread). */
export const declaresOver = (request: IncomingMessage, limit: number): boolean =>
  Number(request.headers['content-length']) > limit;
