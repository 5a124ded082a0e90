/** The messages of the error table of docs/contract.md. */
export const INVALID_INPUT_MESSAGE = 'Invalid input parameters';
export const UNSUPPORTED_MEDIA_TYPE_MESSAGE = 'Content-Type must be application/json';
/** The content codings a JSON body may come in (json-body.ts decodes each; `x-gzip` is gzip). */
export const CONTENT_CODINGS = ['gzip', 'deflate', 'br', 'identity'] as const;
/** `gzip, deflate, br or identity` */
export const CONTENT_CODINGS_TEXT = `${CONTENT_CODINGS.slice(0, -1).join(', ')} or ${CONTENT_CODINGS.at(-1)}`;
export const UNSUPPORTED_CONTENT_ENCODING_MESSAGE = `Content-Encoding must be one of ${CONTENT_CODINGS_TEXT}`;
export const PAYLOAD_TOO_LARGE_MESSAGE = 'Request body too large';
export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

/** The contract fixes these: a thrower's message not among them gives way to the first. */
export const FIXED_MESSAGES: Partial<Record<number, readonly string[]>> = {
  400: [INVALID_INPUT_MESSAGE],
  413: [PAYLOAD_TOO_LARGE_MESSAGE],
  415: [UNSUPPORTED_MEDIA_TYPE_MESSAGE, UNSUPPORTED_CONTENT_ENCODING_MESSAGE],
  500: [INTERNAL_ERROR_MESSAGE],
};

export const rateLimitMessage = (limit: number): string =>
  `Rate limit exceeded. Maximum ${limit} requests per 24 hours.`;
/** A connection past MAX_CONNECTIONS_PER_CLIENT: not the daily limit, so not its 429 message. */
export const OVER_CONNECTION_CAP_MESSAGE =
  'Too many connections from this client: retry in a second';
