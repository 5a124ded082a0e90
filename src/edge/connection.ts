import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey } from '../common/client-key';
import { BODY_LIMIT_BYTES, responseCloses } from '../common/error-responses';
import type { EdgeOptions } from './edge';

/** One server behind the edge: its options, what its connections share and the shutdown sweeps. */
export interface Edge extends Readonly<EdgeOptions> {
  readonly server: Server;
  readonly cap: ConnectionCap;
  /** Each socket's Connection, not on Node's object; still found as its answers close after it. */
  readonly bySocket: WeakMap<Socket, Connection>;
  /** The admitted connections still open, for the shutdown's sweep. */
  readonly connections: Set<Connection>;
  /** `Connection: close` answers: during the drain delay and once the listener is closed. */
  closeAnswers: boolean;
}

/** What the edge knows of one connection. */
export class Connection {
  private readonly requests: IncomingMessage[] = [];
  private readonly responses: ServerResponse[] = [];
  private readonly arrivals: number[] = [];
  closing = false;
  /** Closing because of an answer (markClosing), not the pipelining depth (stopAdmitting). */
  answerCloses = false;
  lingering = false;
  /** Requests deferred behind one whose chunked body was still arriving (handleOnceRead). */
  deferred = 0;
  /** The last request answered, while its body still arrives (answered early). */
  private answeredArriving?: IncomingMessage;
  private readAtAnswer = 0;
  private overCapTimer?: NodeJS.Timeout;
  private whenAnswered?: () => void;
  capPlace?: CapPlace;

  constructor(
    readonly socket: Socket,
    readonly edge: Edge,
  ) {
    edge.bySocket.set(socket, this);
  }

  get waiting(): number {
    return this.requests.length;
  }

  arrived(request: IncomingMessage, response: ServerResponse, now: number): void {
    this.requests.push(request);
    this.responses.push(response);
    this.arrivals.push(now);
  }

  arrivedAt(request: IncomingMessage): number {
    const index = this.requests.indexOf(request);
    return index === -1 ? NaN : this.arrivals[index];
  }

  answered(request: IncomingMessage): void {
    this.forget(request);
    this.readAtAnswer = this.socket.bytesRead;
    // A whole request (and its answer, through Express's req.res) must not outlive its answer, or
    // each one survives the young generation's collections.
    this.answeredArriving = request.complete ? undefined : request;
    const then = this.whenAnswered;
    if (this.requests.length > 0 || then === undefined) return;
    this.whenAnswered = undefined;
    then();
  }

  /** Admitted, but behind an answer that closes the connection by its turn: dropped unhandled. */
  dropped(request: IncomingMessage): void {
    this.forget(request);
    const then = this.whenAnswered;
    if (this.requests.length > 0 || then === undefined) return;
    this.whenAnswered = undefined;
    then();
  }

  private forget(request: IncomingMessage): void {
    const index = this.requests.indexOf(request);
    if (index === -1) return;
    this.requests.splice(index, 1);
    this.responses.splice(index, 1);
    this.arrivals.splice(index, 1);
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
    this.socket.on('data', () => undefined);
  }

  /** Closing, and no admitted request still needs its body (one admitted at shutdown may). */
  nothingMoreToParse(): boolean {
    return this.closing && this.requests.at(-1)?.complete !== false;
  }

  holds(): 'nothing' | 'headers' | 'arriving' | 'handled' {
    // Requests before the latest one were read whole: with two waiting, one is being handled.
    if (this.requests.length > 1) return 'handled';
    const request = this.requests[0];
    if (request !== undefined) return request.complete ? 'handled' : 'arriving';
    return this.socket.bytesRead > this.readAtAnswer ? 'headers' : 'nothing';
  }

  refuseOverCap(ms: number, onSilent: () => void): void {
    this.overCapTimer = setTimeout(onSilent, ms).unref();
  }

  /** Also stops the over-cap timer: a request came. */
  overCap(): boolean {
    if (this.overCapTimer === undefined) return false;
    clearTimeout(this.overCapTimer);
    return true;
  }

  closed(): void {
    clearTimeout(this.overCapTimer);
    if (this.capPlace !== undefined) this.edge.cap.release(this.capPlace);
    this.edge.connections.delete(this);
  }

  /**
   * As nginx's: closing while the client still sends makes the kernel reset, which can destroy the
   * unread answer (curl's exit 55). It half-closes and drops what arrives until its end or a bound.
   */
  lingeringClose(): void {
    const { socket, edge } = this;
    if (this.lingering || socket.destroyed) return;
    this.lingering = true;
    detachParser(socket);
    // Reading stops past the body limit: a client still sending (an endless body, a flood) then
    // stalls on full kernel buffers, not making the server read all it can in LINGERING_TIME_MS.
    let left = BODY_LIMIT_BYTES;
    const drop = (chunk: Buffer): void => {
      left -= chunk.length;
      if (left >= 0) return;
      socket.off('data', drop);
      socket.pause();
    };
    socket.on('data', drop);
    socket.once('end', () => socket.destroy());
    socket.setTimeout(edge.LINGERING_TIMEOUT_MS, () => socket.destroy());
    const deadline = setTimeout(() => socket.destroy(), edge.LINGERING_TIME_MS).unref();
    socket.once('close', () => clearTimeout(deadline));
    socket.end();
    socket.resume();
  }

  /**
   * True, and any answer (a 2xx too) closes, if the body still arriving is past the limit when its
   * head goes out: else Node reads and drops the rest, however long (an endless chunked body).
   */
  closeIfBodyStillArriving(request: IncomingMessage, response: ServerResponse): boolean {
    if (!responseCloses(request)) return false;
    this.closeAtHead(response, () => responseCloses(request));
    return true;
  }

  /**
   * Judged as the head is written, and only for the last request pipelined: an answer written after
   * the drain delay keeps its connection, so its client does not reconnect as the listener closes.
   */
  closeIfShutdownStillSays(request: IncomingMessage, response: ServerResponse): void {
    this.closeAtHead(response, () => this.edge.closeAnswers && this.requests.at(-1) === request);
  }

  closeWaitingAnswers(): void {
    for (let i = 0; i < this.requests.length; i += 1) {
      this.closeIfShutdownStillSays(this.requests[i], this.responses[i]);
    }
  }

  private closeAtHead(response: ServerResponse, stillCloses: () => boolean): void {
    beforeHead(response, () => {
      if (response.headersSent || !stillCloses()) return;
      response.setHeader('Connection', 'close');
      this.markClosing();
    });
  }
}

type ClientCount = { served: number; refused: number };
type CapPlace = { client: string; count: ClientCount; served: boolean };

/**
 * Each client's open connections: refusals past the cap get a 503 (not counted against the daily
 * limit), further ones are closed at accept, so the cap bounds one client's descriptors. Trusted
 * proxies are exempt: every request comes through them.
 */
export class ConnectionCap {
  private readonly open = new Map<string, ClientCount>();

  constructor(private readonly settings: EdgeOptions) {}

  /** Undefined for a trusted proxy's connection; 'closed' past even the refusals (destroyed). */
  admit(socket: Socket): CapPlace | undefined | 'closed' {
    const address = socket.remoteAddress;
    if (address === undefined || this.settings.trustProxy(address, 0)) return undefined;
    // The same client as the daily limit's: an IPv6 /64 is one client.
    const client = clientKey({ ip: undefined, socket });
    const count = this.open.get(client) ?? { served: 0, refused: 0 };
    const served = count.served < this.settings.MAX_CONNECTIONS_PER_CLIENT;
    if (!served && count.refused >= this.settings.CONNECTION_REFUSALS_PER_CLIENT) {
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

// Node's internals a connection relies on, for lack of a public API (src/edge/internals.spec.ts).

/**
 * Runs `then` just before the head is written: no event fires then, but Node's implicit head
 * (private `_implicitHeader`) also calls the instance's `writeHead` (1xx answers aside).
 */
export function beforeHead(response: ServerResponse, then: () => void): void {
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  response.writeHead = (...args: unknown[]): ServerResponse => {
    then();
    return writeHead(...args);
  };
}

/**
 * Private `socket.parser.onIncoming`: Node parses a whole read (up to 64 KiB, ~1,600 pipelined
 * requests) in one call, and only its returning -1 stops llhttp at the next request's headers
 * (clientError HPE_CB_HEADERS_COMPLETE, rest dropped). Pooled parsers get a new one per socket.
 */
export function parseNoFurtherRequests(socket: Socket): void {
  const parser = (socket as Socket & { parser?: { onIncoming?: unknown } | null }).parser;
  if (parser) parser.onIncoming = (): number => -1;
}

/** Node's parser listens to the socket's 'data' and 'end' (undocumented); no API detaches it. */
export function detachParser(socket: Socket): void {
  socket.removeAllListeners('data').removeAllListeners('end');
}
