import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AnswerHeader } from './node-internals';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const INCOMING = REQUEST_ID_HEADER.toLowerCase();
const OUTGOING = new AnswerHeader(REQUEST_ID_HEADER);

/** An incoming id is kept when it is 1 to 128 characters of letters, digits and `_ . : + = / -`. */
const SANE_REQUEST_ID = /^[\w.:+=/-]{1,128}$/;

/** The caller's id when sane, so a proxy's or client's id follows the request through the logs. */
export const requestIdFrom = (given: string | string[] | undefined): string =>
  typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();

export type IdentifiedRequest = IncomingMessage & { id?: string };

/** Before anything else handles the request. */
export function identifyRequest(request: IdentifiedRequest, response: ServerResponse): void {
  request.id = requestIdFrom(request.headers[INCOMING]);
  // A UUID, or a caller's id that SANE_REQUEST_ID passed: nothing in it for setHeader to refuse.
  OUTGOING.setChecked(response, request.id);
}
