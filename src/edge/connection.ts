import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientKey } from '../common/client-key';
import type { Socket } from 'node:net';
import type { AnswerObserver } from '../common/answer-record';
import { type ErrorResponses, responseCloses } from '../common/error-responses';
import {
  beforeHead,
  detachParser,
  onDestroySoon,
  parseNoFurtherRequests,
  type TrustProxy,
} from '../common/platform-internals';

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

interface ClientCount {
  served: number;
  refused: number;
}

interface CapPlace {
  client: string;
  count: ClientCount;
  served: boolean;
}

/**
 * Each client's open connections: refusals past the cap get a 503 (not counted against the daily
 * limit), further ones are closed at accept, so the cap bounds one client's descriptors. Trusted
 * proxies are exempt: every request comes through them.
 */
export class ConnectionCap {
  private readonly open = new Map<string, ClientCount>();

  constructor(
    private readonly limits: {
      maxConnectionsPerClient: number;
      connectionRefusalsPerClient: number;
    },
    private readonly trustProxy: TrustProxy,
  ) {}

  /** Undefined for a trusted proxy's connection; 'closed' past even the refusals (destroyed). */
  admit(socket: Socket): CapPlace | undefined | 'closed' {
    const address = socket.remoteAddress;
    if (address === undefined || this.trustProxy(address, 0)) return undefined;
    // The same client as the daily limit's: an IPv6 /64 is one client.
    const client = clientKey({ ip: undefined, socket });
    const count = this.open.get(client) ?? { served: 0, refused: 0 };
    const served = count.served < this.limits.maxConnectionsPerClient;
    if (!served && count.refused >= this.limits.connectionRefusalsPerClient) {
      socket.destroy();
      return 'closed';
    }
    if (served) count.served += 1;
    else count.refused += 1;
    this.open.set(client, count);
    return { client, count, served };
  }

  release(place: CapPlace): void {
    if (place.served) place.count.served -= 1;
    else place.count.refused -= 1;
    if (place.count.served === 0 && place.count.refused === 0) this.open.delete(place.client);
  }
}

export const connectionHolds = (socket: Socket): ReturnType<Connection['holds']> =>
  connectionOf(socket)?.holds() ?? 'nothing';

export const markClosing = (socket: Socket): void => connectionOf(socket)?.markClosing();

/** How long a lingering close reads (docs/operations.md, "Robustness"). */
export interface LingeringBounds {
  /** LINGERING_TIME_MS: at most this long in all. */
  timeMs: number;
  /** LINGERING_TIMEOUT_MS: closed once the client has sent nothing for this long. */
  timeoutMs: number;
  /** The body limit: at most this much more is read and dropped, then reading stops. */
  bytes: number;
}

/**
 * Stops reading past `bytes`: a client that keeps sending (an endless body, a flood) then stalls on
 * full kernel buffers, rather than make the server read all it can send in LINGERING_TIME_MS.
 */
function dropUpTo(socket: Socket, bytes: number): (chunk: Buffer) => void {
  let left = bytes;
  const drop = (chunk: Buffer): void => {
    left -= chunk.length;
    if (left >= 0) return;
    socket.off('data', drop);
    socket.pause();
  };
  return drop;
}

export const isLingering = (socket: Socket): boolean => connectionOf(socket)?.lingering === true;

/**
 * Closes after the answer as nginx's lingering close does: closing while the client still sends
 * makes the kernel reset, which can destroy the unread answer (ECONNRESET, curl's exit 55). So it
 * half-closes and drops, unparsed, what still arrives until the client closes or a bound passes.
 */
export function lingeringClose(socket: Socket, bounds: LingeringBounds): void {
  const connection = connectionOf(socket);
  if (connection?.lingering || socket.destroyed) return;
  if (connection !== undefined) connection.lingering = true;
  detachParser(socket);
  socket.on('data', dropUpTo(socket, bounds.bytes));
  socket.once('end', () => socket.destroy());
  socket.setTimeout(bounds.timeoutMs, () => socket.destroy());
  const deadline = setTimeout(() => socket.destroy(), bounds.timeMs).unref();
  socket.once('close', () => clearTimeout(deadline));
  socket.end();
  socket.resume();
}

/** Makes every `Connection: close` answer on `socket` end with a lingering close. */
export function lingerOnClose(socket: Socket, bounds: LingeringBounds): void {
  onDestroySoon(socket, () => lingeringClose(socket, bounds));
}

/**
 * Makes any answer, a 2xx too, close its connection if the body is still arriving past the limit
 * as its head goes out (responseCloses): else Node reads and drops the rest to keep the connection,
 * however long (an endless chunked body: gigabytes). Says whether the body is still arriving so.
 */
export function closeIfBodyStillArriving(
  request: IncomingMessage,
  response: ServerResponse,
  bodyLimit: number,
): boolean {
  if (!responseCloses(request, bodyLimit)) return false;
  beforeHead(response, () => {
    if (response.headersSent || !responseCloses(request, bodyLimit)) return;
    response.setHeader('Connection', 'close');
    markClosing(request.socket);
  });
  return true;
}

/** From now on the shutdown's answers close their connections, those already waiting too. */
export function closeAnswersFromNow(edge: {
  closeAnswers: boolean;
  readonly connections: ReadonlySet<Socket>;
}): void {
  edge.closeAnswers = true;
  for (const socket of edge.connections) {
    const connection = connectionOf(socket);
    connection?.eachWaiting((request, response) =>
      closeIfShutdownStillSays(edge, connection, request, response),
    );
  }
}

/**
 * Judged when the head is written, not at arrival, and only for the last request pipelined: an
 * answer written after the drain delay keeps its connection, so its client does not reconnect just
 * as the listener closes.
 */
export function closeIfShutdownStillSays(
  edge: { readonly closeAnswers: boolean },
  connection: Connection,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  beforeHead(response, () => {
    if (response.headersSent || !edge.closeAnswers || !connection.isLatest(request)) return;
    response.setHeader('Connection', 'close');
    connection.markClosing();
  });
}
