import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AnswerObserver } from '../common/answer-record';
import type { ErrorResponses } from '../common/error-responses';
import type { CapPlace, ConnectionCap } from './connection-limits';
import { detachParser, parseNoFurtherRequests } from '../common/node-internals';
import type { LingeringBounds } from './lingering-close';

export interface EdgeContext {
  observers: AnswerObserver[];
  lingering: LingeringBounds;
  /** The error writer; its body limit bounds what a refusal reads of a body still arriving. */
  errors: ErrorResponses;
  /** For the shutdown's sweep. */
  connections: Set<Socket>;
  cap: ConnectionCap;
}

const connections = new WeakMap<Socket, Connection>();

const dropChunk = (): void => undefined;

export const connectionOf = (socket: Socket): Connection | undefined => connections.get(socket);

/** What the edge knows of one connection, kept beside its socket (a WeakMap), not on Node's. */
export class Connection {
  private readonly requests: IncomingMessage[] = [];
  private readonly responses: ServerResponse[] = [];
  private readonly arrivals: number[] = [];
  /** Requests after an answer that closes the connection are neither handled nor counted. */
  closing = false;
  /** Closing because of an answer (markClosing), not the pipelining depth (stopAdmitting). */
  answerCloses = false;
  lingering = false;
  /** The last request answered, while its body still arrives (answered early). */
  private answeredArriving?: IncomingMessage;
  private readAtAnswer = 0;
  private overCapTimer?: NodeJS.Timeout;
  private whenAnswered?: () => void;
  capPlace?: CapPlace;

  constructor(
    readonly socket: Socket,
    readonly context: EdgeContext,
  ) {
    connections.set(socket, this);
  }

  get waiting(): number {
    return this.requests.length;
  }

  arrived(request: IncomingMessage, response: ServerResponse, now: number): void {
    this.requests.push(request);
    this.responses.push(response);
    this.arrivals.push(now);
  }

  eachWaiting(each: (request: IncomingMessage, response: ServerResponse) => void): void {
    for (let i = 0; i < this.requests.length; i += 1) each(this.requests[i], this.responses[i]);
  }

  isLatest(request: IncomingMessage): boolean {
    return this.requests[this.requests.length - 1] === request;
  }

  arrivedAt(request: IncomingMessage): number {
    const index = this.requests.indexOf(request);
    return index === -1 ? NaN : this.arrivals[index];
  }

  /** Requests deferred behind one whose chunked body was still arriving (handleOnceRead). */
  deferred = 0;

  answered(request: IncomingMessage): void {
    this.forget(request);
    this.readAtAnswer = this.socket.bytesRead;
    // A whole request (and its answer, through Express's req.res) must not outlive its answer, or
    // each one survives the young generation's collections.
    this.answeredArriving = request.complete ? undefined : request;
    const then = this.requests.length === 0 ? this.whenAnswered : undefined;
    if (then !== undefined) {
      this.whenAnswered = undefined;
      then();
    }
  }

  /** Admitted, but behind an answer that closes the connection by its turn: dropped unhandled. */
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

  /** Stops reading meanwhile: what comes after is not for the application. */
  whenAllAnswered(then: () => void): void {
    this.socket.pause();
    if (this.requests.length === 0) then();
    else this.whenAnswered = then;
  }

  answeredStillArriving(): boolean {
    return this.answeredArriving?.complete === false;
  }

  /** An answer will close the connection: nothing the client pipelined after it is handled. */
  markClosing(): void {
    this.answerCloses = true;
    this.stopAdmitting();
  }

  /** Those already admitted are still answered. */
  stopAdmitting(): void {
    this.closing = true;
    parseNoFurtherRequests(this.socket);
  }

  /** A paused socket stays paused: past the pipelining depth it waits, unread, for its answers. */
  stopParsing(): void {
    detachParser(this.socket);
    this.socket.on('data', dropChunk);
  }

  /** Closing, and no admitted request still needs its body (one admitted at shutdown may). */
  nothingMoreToParse(): boolean {
    return this.closing && this.requests[this.requests.length - 1]?.complete !== false;
  }

  holds(): 'nothing' | 'headers' | 'arriving' | 'handled' {
    // Requests before the latest one were read whole: with two waiting, one is being handled.
    if (this.requests.length > 1) return 'handled';
    const request = this.requests[0];
    if (request !== undefined) return request.complete ? 'handled' : 'arriving';
    return this.socket.bytesRead > this.readAtAnswer ? 'headers' : 'nothing';
  }

  refuseOverCap(ms: number, onSilent: () => void): void {
    this.overCapTimer = setTimeout(onSilent, ms);
    this.overCapTimer.unref();
  }

  /** Also stops the over-cap timer: a request came. */
  overCap(): boolean {
    if (this.overCapTimer === undefined) return false;
    clearTimeout(this.overCapTimer);
    return true;
  }

  closed(): void {
    clearTimeout(this.overCapTimer);
    if (this.capPlace !== undefined) this.context.cap.release(this.capPlace);
    this.context.connections.delete(this.socket);
  }
}

export const connectionHolds = (socket: Socket): ReturnType<Connection['holds']> =>
  connectionOf(socket)?.holds() ?? 'nothing';

export const markClosing = (socket: Socket): void => connectionOf(socket)?.markClosing();
