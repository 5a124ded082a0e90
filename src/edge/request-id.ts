import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An incoming id is kept when it is 1 to 128 characters of letters, digits and `_ . : + = / -`. */
const SANE_REQUEST_ID = /^[\w.:+=/-]{1,128}$/;

/**
 * The request's id: the caller's `X-Request-Id` when it is sane (so a proxy's or a client's id
 * follows the request through the logs), a new UUID otherwise. Sent back in `X-Request-Id`.
 */
export function requestId(request: IncomingMessage, response: ServerResponse): string {
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

/** A request once the edge has seen it: `id` is its request id, also in X-Request-Id. */
export type IdentifiedRequest = IncomingMessage & { id?: string };

/** Gives the request its id (X-Request-Id), before anything else handles it. */
export const identifyRequest = (request: IdentifiedRequest, response: ServerResponse): void => {
  request.id = requestId(request, response);
};
