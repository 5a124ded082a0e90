import { randomUUID } from 'node:crypto';
import { METHODS, type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { answerRecord, originForm, pathOf, REQUEST_ID_HEADER } from '../common/answer-record';
import type { Connection, Edge } from './connection';

/** What Node's parser refused: its read (`rawPacket`) holds the request line the log names. */
type ClientError = Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number };

interface SocketAnswer {
  refused?: ClientError;
  message?: string;
  headers?: OutgoingHttpHeaders;
}

/** The method, and the target when a version ends the line. */
const REQUEST_LINE = /^([^ ]*)(?: ([^ ]*) HTTP\/\d\.\d$)?/;

/**
 * The refused request's line, if the read (pipelined requests, or from inside the headers) has one;
 * only a method Node knows can label a metric. Else `-`, so that no header's text is logged.
 */
function requestLineOf({ refused }: SocketAnswer): { method: string; url: string } {
  const packet = refused?.rawPacket;
  // Headers too large: the request line is not looked for (it may be 16 KiB back).
  const overflow = refused?.code === 'HPE_HEADER_OVERFLOW';
  if (packet === undefined || overflow) return { method: '-', url: '-' };
  const end = Math.min(refused?.bytesParsed ?? packet.length, packet.length);
  const blank = end < 4 ? -1 : packet.lastIndexOf('\r\n\r\n', end - 4);
  const start = blank === -1 ? 0 : blank + 4;
  const lineEnd = packet.indexOf('\r\n', start);
  const line = packet.subarray(start, lineEnd === -1 ? packet.length : lineEnd).toString('latin1');
  const [, method, target = '-'] = REQUEST_LINE.exec(line)!;
  const url = pathOf(originForm(target)).slice(0, 256);
  return { method: METHODS.includes(method) ? method : '-', url };
}

/** Private `socket._httpMessage`: no public API maps a socket to the response being written. */
export const responseOn = (socket: Socket): ServerResponse | undefined =>
  (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;

/**
 * An error answer where no response object exists (Node's parser refused, a header timeout, a
 * silent connection over the cap): written as ErrorResponses.send would, then logged and counted.
 */
export function answerOnSocket(connection: Connection, status: number, answer: SocketAnswer = {}) {
  const { socket } = connection;
  // Already closing after an answer: its own bounds end it.
  if (connection.lingering) return;
  const inFlight = responseOn(socket);
  if (inFlight && !inFlight.req.complete) {
    // The request whose body was arriving takes the answer; one it already has closes by itself.
    if (!inFlight.headersSent) {
      connection.edge.errors.send(inFlight, status, answer.message, answer.headers, true);
    } else if (!inFlight.writableEnded || !connection.closing) socket.destroy();
    return;
  }
  // A request answered early stopped sending its body: it had its answer; the connection closes.
  if (!inFlight && connection.answeredStillArriving()) {
    connection.lingeringClose();
    return;
  }
  // Whole requests pipelined before what went wrong are answered first, in order.
  if (connection.waiting > 0) {
    connection.whenAllAnswered(() => writeOnSocket(connection, status, answer));
  } else writeOnSocket(connection, status, answer);
}

function writeOnSocket(connection: Connection, status: number, answer: SocketAnswer): void {
  const { socket, edge } = connection;
  if (connection.lingering) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const request = { ...requestLineOf(answer), socket, id: randomUUID() };
  const body = edge.errors.body(status, answer.message);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `${REQUEST_ID_HEADER}: ${request.id}`,
  ];
  const head = {
    hasHeader: () => false,
    setHeader: (name: string, value: unknown) => lines.push(`${name}: ${String(value)}`),
  };
  edge.errors.setHeaders(head, answer.headers ?? {}, true, body.byteLength);
  // No body in a response to HEAD (RFC 9110 §9.3.2): Node drops it from a response, not here.
  socket.write(`${lines.join('\r\n')}\r\n\r\n${request.method === 'HEAD' ? '' : body.text}`);
  connection.lingeringClose();
  const record = answerRecord(request, status, true, 0);
  for (const observe of edge.observers) observe(record);
}

/** Node's own statuses for what its HTTP parser refuses; anything else is a malformed request. */
const STATUS_BY_CODE: Partial<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  // A request line whose version is not HTTP/1.x (`HTTP/1.2`, `HTTP/3.0`, `HTTP/1`).
  HPE_INVALID_VERSION: 505,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * What Node's parser refuses never reaches Express, and Node would answer it with a bare status
 * line: this sends the error body. A lingering connection keeps its own bounds.
 */
export function answerClientError(edge: Edge, error: ClientError, socket: Duplex): void {
  const connection = edge.bySocket.get(socket as Socket);
  if (connection === undefined || connection.lingering || error.code === 'ECONNRESET') {
    if (!connection?.lingering || error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') socket.destroy();
    return;
  }
  // The parser stopped at a request after one whose answer closes the connection (markClosing):
  // not the client's error, and not answered; nothing more it sends is parsed.
  if (error.code === 'HPE_CB_HEADERS_COMPLETE' && connection.nothingMoreToParse()) {
    connection.stopParsing();
    return;
  }
  answerOnSocket(connection, STATUS_BY_CODE[error.code ?? ''] ?? 400, { refused: error });
}
