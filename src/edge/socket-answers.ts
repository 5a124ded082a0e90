import type { OutgoingHttpHeaders } from 'node:http';
import { METHODS, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { answerRecord, pathOf } from '../common/answer-record';
import { answerError, bodyFor, type HeaderTarget, setErrorHeaders } from '../common/error-answer';
import { type Connection, connectionOf } from './connection';
import { errorAnswerBody } from '../common/error-body';
import { responseOn } from '../common/node-internals';
import { lingeringClose } from './lingering-close';
import { REQUEST_ID_HEADER, requestIdFrom } from '../common/request-id';

interface SocketAnswer {
  /** The read in which Node's parser refused a request, for the request line the log names. */
  packet?: Buffer;
  /** How much of `packet` the parser had taken when it refused. */
  parsed?: number;
  /** The headers were too large: the request line is not looked for (it may be 16 KiB back). */
  overflow?: boolean;
  message?: string;
  headers?: OutgoingHttpHeaders;
}

/** The lines of an answer's head, written on a socket with no response object. */
class HeadLines implements HeaderTarget {
  readonly lines: string[];
  constructor(status: number) {
    this.lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`];
  }
  hasHeader(): boolean {
    return false;
  }
  setHeader(name: string, value: number | string | readonly string[]): void {
    this.lines.push(`${name}: ${String(value)}`);
  }
  toString(): string {
    return `${this.lines.join('\r\n')}\r\n\r\n`;
  }
}

/** A request line's target and version (what a packet starting inside the headers has not). */
const TARGET_AND_VERSION = /^[^ ]* HTTP\/\d\.\d$/;

/**
 * The request line of the request Node's parser refused, for the log and the metrics (and a
 * HEAD's answer has no body): a method Node knows, else `-` (a metric label must not take whatever
 * a client sends), and the target cut short. The packet is the whole read, which may hold requests
 * before the refused one (pipelined), or start inside its headers: the line is the one after the
 * last blank line before where the parser stopped, and a target is taken only from a line that
 * ends as a request line does, else `-`, so that no header's text is logged.
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
  return { method: METHODS.includes(method) ? method : '-', url: pathOf(target).slice(0, 256) };
}

/**
 * An error answer on a connection that has no response object to write it with: Node's parser
 * refused what arrived (400, 413, 431), the request timed out before its headers were whole
 * (408), or a connection over the cap sent nothing in time (503). The same body and headers as
 * `answerError`, a new request id, `Connection: close`, then a lingering close; logged and counted
 * here. A request whose body was still arriving takes the answer on its own response (so it is
 * logged once, with this status); whole requests still being answered (pipelined before what went
 * wrong) are answered first.
 */
export function answerOnSocket(socket: Socket, status: number, answer: SocketAnswer = {}): void {
  const connection = connectionOf(socket);
  // Already closing after an answer: its own bounds end it.
  if (connection?.lingering) return;
  const inFlight = responseOn(socket);
  if (inFlight && !inFlight.req.complete) {
    // The request whose body was arriving takes the answer; one it already has closes by itself.
    if (!inFlight.headersSent) answerError(inFlight, status, answer.message, answer.headers, true);
    else if (!inFlight.writableEnded || connection?.closing !== true) socket.destroy();
    return;
  }
  if (connection === undefined) {
    socket.destroy();
    return;
  }
  // The body of a request already answered (early, keeping the connection) stopped arriving: it
  // had its answer; the connection just closes.
  if (!inFlight && connection.answeredStillArriving()) {
    lingeringClose(socket, connection.context.lingering);
    return;
  }
  // What went wrong came after whole requests still being answered (pipelined): they are
  // answered first, in order, then this.
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
  const body = errorAnswerBody(status, answer.message);
  const head = new HeadLines(status);
  head.setHeader(REQUEST_ID_HEADER, request.id);
  setErrorHeaders(head, answer.headers ?? {}, true, body.byteLength);
  socket.write(head.toString() + (bodyFor(request.method, body.text) ?? ''));
  lingeringClose(socket, context.lingering);
  const record = answerRecord(request, status, true, 0);
  for (const observe of context.observers) observe(record);
}
