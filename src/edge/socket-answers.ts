import { METHODS, type OutgoingHttpHeaders, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import {
  answerRecord,
  originForm,
  pathOf,
  REQUEST_ID_HEADER,
  requestIdFrom,
} from '../common/answer-record';
import { bodyFor } from '../common/error-responses';
import { type Connection, connectionOf, lingeringClose } from './connection';
import { responseOn } from '../common/platform-internals';

interface SocketAnswer {
  /** The read in which Node's parser refused a request, for the request line the log names. */
  packet?: Buffer;
  parsed?: number;
  /** The headers were too large: the request line is not looked for (it may be 16 KiB back). */
  overflow?: boolean;
  message?: string;
  headers?: OutgoingHttpHeaders;
}

const TARGET_AND_VERSION = /^[^ ]* HTTP\/\d\.\d$/;

/**
 * The refused request's line: the read may hold pipelined requests or start inside the headers, so
 * only a real request line gives a target, and only a method Node knows is kept (a metric label
 * must not take whatever a client sends); else `-`, so that no header's text is logged.
 */
function requestLineOf(answer: SocketAnswer): { method: string; url: string } {
  const { packet } = answer;
  if (packet === undefined || answer.overflow) return { method: '-', url: '-' };
  const end = Math.min(answer.parsed ?? packet.length, packet.length);
  const blank = end < 4 ? -1 : packet.lastIndexOf('\r\n\r\n', end - 4);
  const start = blank === -1 ? 0 : blank + 4;
  const lineEnd = packet.indexOf('\r\n', start);
  const line = packet.subarray(start, lineEnd === -1 ? packet.length : lineEnd).toString('latin1');
  const space = line.indexOf(' ');
  const method = line.slice(0, space >>> 0);
  const rest = space === -1 ? '' : line.slice(space + 1);
  const target = TARGET_AND_VERSION.test(rest) ? rest.slice(0, rest.lastIndexOf(' ')) : '-';
  const url = pathOf(originForm(target)).slice(0, 256);
  return { method: METHODS.includes(method) ? method : '-', url };
}

/**
 * An error answer where no response object exists (Node's parser refused, a header timeout, a
 * silent connection over the cap): written as ErrorResponses.send would, then logged and counted.
 */
export function answerOnSocket(socket: Socket, status: number, answer: SocketAnswer = {}): void {
  const connection = connectionOf(socket);
  // Already closing after an answer: its own bounds end it.
  if (connection?.lingering) return;
  const inFlight = responseOn(socket);
  if (inFlight && !inFlight.req.complete) {
    // The request whose body was arriving takes the answer; one it already has closes by itself.
    if (!inFlight.headersSent && connection) {
      connection.context.errors.send(inFlight, status, answer.message, answer.headers, true);
    } else if (!inFlight.writableEnded || connection?.closing !== true) socket.destroy();
    return;
  }
  if (connection === undefined) {
    socket.destroy();
    return;
  }
  // A request answered early stopped sending its body: it had its answer; the connection closes.
  if (!inFlight && connection.answeredStillArriving()) {
    lingeringClose(socket, connection.context.lingering);
    return;
  }
  // Whole requests pipelined before what went wrong are answered first, in order.
  if (connection.waiting > 0) {
    connection.whenAllAnswered(() => writeOnSocket(connection, status, answer));
    return;
  }
  writeOnSocket(connection, status, answer);
}

function writeOnSocket(connection: Connection, status: number, answer: SocketAnswer): void {
  const { socket, context } = connection;
  if (connection.lingering) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const request = { ...requestLineOf(answer), socket, id: requestIdFrom(undefined) };
  const body = context.errors.body(status, answer.message);
  // The head's lines, written on a socket with no response object.
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `${REQUEST_ID_HEADER}: ${request.id}`,
  ];
  const head = {
    hasHeader: () => false,
    setHeader: (name: string, value: unknown) => lines.push(`${name}: ${String(value)}`),
  };
  context.errors.setHeaders(head, answer.headers ?? {}, true, body.byteLength);
  socket.write(`${lines.join('\r\n')}\r\n\r\n${bodyFor(request.method, body.text) ?? ''}`);
  lingeringClose(socket, context.lingering);
  const record = answerRecord(request, status, true, 0);
  for (const observe of context.observers) observe(record);
}
