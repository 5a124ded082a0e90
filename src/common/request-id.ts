import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AnswerHeader } from './node-internals';

/** The header that carries a request's id, both ways. */
export const REQUEST_ID_HEADER = 'X-Request-Id';
const INCOMING = REQUEST_ID_HEADER.toLowerCase();
const OUTGOING = new AnswerHeader(REQUEST_ID_HEADER);

/** An incoming id is kept when it is 1 to 128 characters of letters, digits and `_ . : + = / -`. */
const SANE_REQUEST_ID = /^[\w.:+=/-]{1,128}$/;

/**
 * A request's id: the caller's when it is sane (so a proxy's or a client's id follows the request
 * through the logs), a new UUID otherwise (or when there is no request to read it from).
 */
export const requestIdFrom = (given: string | string[] | undefined): string =>
  typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();

/** A request once the edge has seen it: `id` is its request id, also in X-Request-Id. */
export type IdentifiedRequest = IncomingMessage & { id?: string };

/** Gives the request its id, sent back in X-Request-Id, before anything else handles it. */
export function identifyRequest(request: IdentifiedRequest, response: ServerResponse): void {
  request.id = requestIdFrom(request.headers[INCOMING]);
  // A UUID, or a caller's id that SANE_REQUEST_ID passed: nothing in it for setHeader to refuse.
  OUTGOING.setChecked(response, request.id);
}
