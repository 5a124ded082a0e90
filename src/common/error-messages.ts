/** The messages of the error table of docs/contract.md. */
export const INVALID_INPUT_MESSAGE = 'Invalid input parameters';
export const UNSUPPORTED_MEDIA_TYPE_MESSAGE = 'Content-Type must be application/json';
export const UNSUPPORTED_CONTENT_ENCODING_MESSAGE =
  'Content-Encoding must be one of gzip, deflate, br or identity';
export const PAYLOAD_TOO_LARGE_MESSAGE = 'Request body too large';
export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

export const rateLimitMessage = (limit: number): string =>
  `Rate limit exceeded. Maximum ${limit} requests per 24 hours.`;
/** A connection past MAX_CONNECTIONS_PER_CLIENT: not the daily limit, so not its 429 message. */
export const OVER_CONNECTION_CAP_MESSAGE =
  'Too many connections from this client: retry in a second';
