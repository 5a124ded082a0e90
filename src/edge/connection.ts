import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AnswerObserver } from '../common/answer-record';
import type { CapPlace, ConnectionCap } from './connection-limits';
import { detachParser, parseNoFurtherRequests } from '../common/node-internals';
import type { LingeringBounds } from './lingering-close';

/** What the edge of one server knows of it (set up by installEdge). */
export interface EdgeContext {
  observers: AnswerObserver[];
  lingering: LingeringBounds;
  /** The body limit: a refusal keeps the connection only when what is left of the body is within it. */
  bodyLimit: number;
  /** Its open connections, for the shutdown's sweep. */
  connections: Set<Socket>;
  cap: ConnectionCap;
}

const connections = new WeakMap<Socket, Connection>();

const dropChunk = (): void => undefined;

/** The edge's Connection for `socket`, once the server under the edge has accepted it. */
export const connectionOf = (socket: Socket): Connection | undefined => connections.get(socket);

/**
 * Everything the edge knows of one connection, in one object kept beside its socket (a WeakMap),
 * none of it on Node's objects: its requests waiting for their answers (pipelined, oldest first)
 * and when each arrived, whether an answer closes it (nothing after it is handled), whether it is
 * closing with a lingering close, its place against its client's cap.
 */
export class Connection {
  private readonly requests: IncomingMessage[] = [];
  private readonly responses: ServerResponse[] = [];
  private readonly arrivals: number[] = [];
  /** An answer on it closes the connection: requests after it are neither handled nor counted. */
  closing = false;
  /** Closing because an answer on it closes it (markClosing), not the depth (stopAdmitting). */
  answerCloses = false;
  /** Closing with a lingering close: its answer is sent, nothing more is parsed. */
  lingering = false;
  /** The last request answered, kept only while its body still arrives (answered early). */
  private answeredArriving?: IncomingMessage;
  private readAtAnswer = 0;
  /** Over its client's cap: its request is answered 503 (the timer answers if none comes). */
  private overCapTimer?: NodeJS.Timeout;
  private whenAnswered?: () => void;
  capPlace?: CapPlace;

  constructor(
    readonly socket: Socket,
    readonly context: EdgeContext,
  ) {
    connections.set(socket, this);
  }

  /** Requests that have arrived and not yet been answered. */
  get waiting(): number {
    return this.requests.length;
  }

  /** A request starts on this connection: one more waiting for its answer. */
  arrived(request: IncomingMessage, response: ServerResponse, now: number): void {
    this.requests.push(request);
    this.responses.push(response);
    this.arrivals.push(now);
  }

  /** Calls `each` with every request waiting here and its response, oldest first. */
  eachWaiting(each: (request: IncomingMessage, response: ServerResponse) => void): void {
    for (let i = 0; i < this.requests.length; i += 1) each(this.requests[i], this.responses[i]);
  }

  /** Whether `request` is the latest waiting here: no request was pipelined behind it. */
  isLatest(request: IncomingMessage): boolean {
    return this.requests[this.requests.length - 1] === request;
  }

  /** When `request` arrived (performance.now()), or NaN for one not waiting here. */
  arrivedAt(request: IncomingMessage): number {
    const index = this.requests.indexOf(request);
    return index === -1 ? NaN : this.arrivals[index];
  }

  /**
   * Requests handed to the application later, in order, behind one whose chunked body was still
   * arriving (edge.ts, handleOnceRead).
   */
  deferred = 0;

  /** The answer to `request` is done (its response closed): one fewer waiting. */
  answered(request: IncomingMessage): void {
    this.forget(request);
    this.readAtAnswer = this.socket.bytesRead;
    // Kept only while its body still arrives: a whole request (and its answer, through Express's
    // req.res) must not outlive its answer, or each one survives the young generation's collections.
    this.answeredArriving = request.complete ? undefined : request;
    const then = this.requests.length === 0 ? this.whenAnswered : undefined;
    if (then !== undefined) {
      this.whenAnswered = undefined;
      then();
    }
  }

  /**
   * `request`, admitted but behind an answer that closes the connection by the time its turn came,
   * is dropped unhandled: it no longer waits here.
   */
  dropped(request: IncomingMessage): void {
    this.forget(request);
    const then = this.requests.length === 0 ? this.whenAnswered : undefined;
    this.whenAnswered = undefined;
    then?.();
  }

  private forget(request: IncomingMessage): void {
    const index = this.requests.indexOf(request);
    if (index !== -1) {
      this.requests.splice(index, 1);
      this.responses.splice(index, 1);
      this.arrivals.splice(index, 1);
    }
  }

  /**
   * Runs `then` once every request waiting is answered (at once if none is), and stops reading the
   * connection meanwhile: what comes after is not for the application (a request past the
   * pipelining depth, bytes the parser refused).
   */
  whenAllAnswered(then: () => void): void {
    this.socket.pause();
    if (this.requests.length === 0) then();
    else this.whenAnswered = then;
  }

  /** Whether the last request answered is still sending its body (answered early). */
  answeredStillArriving(): boolean {
    return this.answeredArriving?.complete === false;
  }

  /**
   * An answer on this connection will close it: what the client pipelined after it is not
   * handled, and Node's parser stops at the next request's headers (the rest of its read is
   * dropped unparsed; answerClientError then calls stopParsing).
   */
  markClosing(): void {
    this.answerCloses = true;
    this.stopAdmitting();
  }

  /**
   * No request after this point is admitted (past the pipelining depth: the ones admitted are
   * still answered), and Node's parser stops at the next request's headers.
   */
  stopAdmitting(): void {
    this.closing = true;
    parseNoFurtherRequests(this.socket);
  }

  /**
   * Nothing more the client sends is parsed: Node's parser is detached, and what arrives is dropped
   * (the socket stays paused if it was: a connection past the pipelining depth waits, unread, for
   * its answers and its lingering close).
   */
  stopParsing(): void {
    detachParser(this.socket);
    this.socket.on('data', dropChunk);
  }

  /**
   * Whether nothing more the client sends is for the application: an answer will close the
   * connection, and no request it admitted is still arriving (a request admitted while shutting
   * down still needs its body).
   */
  nothingMoreToParse(): boolean {
    return this.closing && this.requests[this.requests.length - 1]?.complete !== false;
  }

  /**
   * What the connection holds: nothing at all (idle, or new and silent), the start of a request
   * whose headers are not whole yet, a request whose body is still arriving, or one being handled.
   */
  holds(): 'nothing' | 'headers' | 'arriving' | 'handled' {
    // Requests before the latest one were read whole: with two waiting, one is being handled.
    if (this.requests.length > 1) return 'handled';
    const request = this.requests[0];
    if (request !== undefined) return request.complete ? 'handled' : 'arriving';
    return this.socket.bytesRead > this.readAtAnswer ? 'headers' : 'nothing';
  }

  /** Over its client's cap: `onSilent` answers it if no request comes within `ms`. */
  refuseOverCap(ms: number, onSilent: () => void): void {
    this.overCapTimer = setTimeout(onSilent, ms);
    this.overCapTimer.unref();
  }

  /** Whether this is a connection over its client's cap; its timer stops (a request came). */
  overCap(): boolean {
    if (this.overCapTimer === undefined) return false;
    clearTimeout(this.overCapTimer);
    return true;
  }

  /** The socket has closed: its timer stops, its client's count and the server's set drop it. */
  closed(): void {
    clearTimeout(this.overCapTimer);
    if (this.capPlace !== undefined) this.context.cap.release(this.capPlace);
    this.context.connections.delete(this.socket);
  }
}

/** What a connection holds (Connection.holds), by its socket; nothing for one the edge never saw. */
export const connectionHolds = (socket: Socket): ReturnType<Connection['holds']> =>
  connectionOf(socket)?.holds() ?? 'nothing';

/** An answer on `socket` will close it (Connection.markClosing). */
export const markClosing = (socket: Socket): void => connectionOf(socket)?.markClosing();
