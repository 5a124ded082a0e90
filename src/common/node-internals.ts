import {
  OutgoingMessage,
  type Server,
  type ServerResponse,
  validateHeaderName,
  validateHeaderValue,
} from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/**
 * Every private or undocumented property of Node the service relies on, and nothing else: Node has
 * no public API for what the edge needs (a lingering close, a parser that stops at a request, its
 * own answer to a request without Host, a say in every answer's head), nor for a header set without
 * checking again on every answer a name checked once (AnswerHeader), so the service reaches into
 * what Node keeps. Checked on Node 24.21.0 (lib/_http_server.js, lib/_http_outgoing.js,
 * lib/net.js); Express's are in express-internals.ts. node-internals.spec.ts checks each one on a
 * real server and socket, and names the property that moved.
 */
export const CHECKED_ON = { node: '24.21.0' } as const;

/** What an accepted socket keeps of its HTTP server and the answer being written. */
type Internal = Socket & {
  _httpMessage?: ServerResponse | null;
};

/** A property Node sets on the server at creation, set again before it listens. */
function setOwn(server: Server, name: string, type: string, value: unknown): void {
  const own = server as unknown as Record<string, unknown>;
  if (typeof own[name] !== type) {
    throw new Error(`http.Server has no ${type} \`${name}\` (checked on Node ${CHECKED_ON.node})`);
  }
  own[name] = value;
}

/** Node answers a request without Host with a bare 400 unless `requireHostHeader` is false. */
export const acceptRequestsWithoutHost = (server: Server): void =>
  setOwn(server, 'requireHostHeader', 'boolean', false);

/** How often Node checks the header and request timeouts (`connectionsCheckingInterval`). */
export const checkTimeoutsEvery = (server: Server, ms: number): void =>
  setOwn(server, 'connectionsCheckingInterval', 'number', ms);

/** The response being written on `socket` (`_httpMessage`), if any. */
export const responseOn = (socket: Socket): ServerResponse | undefined =>
  (socket as Internal)._httpMessage ?? undefined;

/** Node calls `socket.destroySoon()` once an answer with `Connection: close` is sent. */
export function onDestroySoon(socket: Socket, then: () => void): void {
  socket.destroySoon = then;
}

/**
 * Runs `then` just before `response`'s head is written, whichever way it is written: Node writes
 * an implicit head (a first `write` or `end`) through the response's own `writeHead`
 * (`_implicitHeader`), so the instance's method sees every answer, 1xx interim answers aside.
 */
export function beforeHead(response: ServerResponse, then: () => void): void {
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  response.writeHead = (...args: unknown[]): ServerResponse => {
    then();
    return writeHead(...args);
  };
}

/** Node's HTTP parser on a server socket (`socket.parser`), as far as the edge touches it. */
type ParsedSocket = Socket & { parser?: { onIncoming?: unknown } | null };

/** What Node's parser is told at a request's headers once no request is to be parsed. */
const REFUSE_REQUEST = (): number => -1;

/**
 * Makes Node's parser stop at the next request's headers on `socket`; the request being parsed,
 * its body included, is unaffected. Node's parser reads the socket itself (`parser.consume`) and
 * parses a whole read, up to 64 KiB, in one call: a flood's first read holds about 1,600 requests.
 * llhttp ends that call when `on_headers_complete` returns -1, and Node's
 * `parserOnHeadersComplete` returns `parser.onIncoming`'s result unchanged; Node then reports a
 * `clientError` with code HPE_CB_HEADERS_COMPLETE and drops the rest of the read unparsed. Node
 * gives a pooled parser a new `onIncoming` for each connection.
 */
export function parseNoFurtherRequests(socket: Socket): void {
  const parser = (socket as ParsedSocket).parser;
  if (parser) parser.onIncoming = REFUSE_REQUEST;
}

/**
 * Detaches Node's HTTP parser from `socket` (its 'data' and 'end' listeners): nothing the client
 * sends from here on is parsed.
 */
export function detachParser(socket: Socket): void {
  for (const listener of socket.listeners('data')) socket.off('data', listener as () => void);
  for (const listener of socket.listeners('end')) socket.off('end', listener as () => void);
}

/**
 * Closes the listener only: http.Server's own `close()` also closes idle keep-alive connections at
 * once and stops the timeout checks, so net.Server's is called on it.
 */
export const closeListener = (server: Server, then: () => void): void =>
  void NetServer.prototype.close.call(server, then);

/** The listening socket's descriptor (`_handle.fd`; Node sets -1 where it has none), or undefined. */
export function listenerFd(server: Server): number | undefined {
  const fd = (server as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** Where a response keeps the headers set on it (`kOutHeaders`): lower-case name → [name, value]. */
type HeaderStore = Record<string, [string, string]>;

/**
 * OutgoingMessage's `kOutHeaders` symbol, found by its description on a new message; undefined
 * if it has moved (the headers are then set through setHeader, as before).
 */
const OUT_HEADERS = Object.getOwnPropertySymbols(new OutgoingMessage()).find(
  (symbol) => symbol.description === 'kOutHeaders',
);

/**
 * A response header whose name is checked once, when it is made, not on every answer. Node's
 * `setHeader` checks the name and the value, lower-cases the name and stores `[name, value]` under
 * it in the response's header store, each time: about 0.3 µs a header on every answer, and an API
 * answer carries eleven of ours (bench/README.md, "Where the time goes"). `set` stores a value as
 * `setHeader` would, checking only the value; `setChecked` stores one that needs no check (a fixed
 * value checked once by `withValue`, or one made of checked parts). Once the head is written both
 * throw as setHeader does.
 */
export class AnswerHeader {
  /** The name as it is written, and the key Node's header store keeps it under. */
  private readonly key: string;

  constructor(readonly name: string) {
    validateHeaderName(name);
    this.key = name.toLowerCase();
  }

  /** Sets `value` on `response`, checked as setHeader checks it (no CR, LF or NUL). */
  set(response: ServerResponse, value: string): void {
    validateHeaderValue(this.name, value);
    this.setChecked(response, value);
  }

  /**
   * Sets `value` on `response` unchecked: a value nothing in it can be refused by setHeader (a
   * fixed value checked by withValue, digits, a request id SANE_REQUEST_ID passed).
   */
  setChecked(response: ServerResponse, value: string): void {
    const store = headerStore(response);
    if (store === undefined) response.setHeader(this.name, value);
    else store[this.key] = [this.name, value];
  }

  /** This header with a fixed value, checked now: `set` with it then checks nothing. */
  withValue(value: string): FixedAnswerHeader {
    validateHeaderValue(this.name, value);
    return { header: this, value };
  }
}

/** A header and its fixed value, both checked once (AnswerHeader.withValue). */
interface FixedAnswerHeader {
  readonly header: AnswerHeader;
  readonly value: string;
}

/** `[name, value]` pairs as fixed headers, each checked now. */
export const fixedHeaders = (
  pairs: ReadonlyArray<readonly [string, string]>,
): FixedAnswerHeader[] => pairs.map(([name, value]) => new AnswerHeader(name).withValue(value));

/** Sets each of `headers` on `response`, in order, as setHeader would. */
export function setFixedHeaders(
  response: ServerResponse,
  headers: readonly FixedAnswerHeader[],
): void {
  for (const { header, value } of headers) header.setChecked(response, value);
}

/**
 * `response`'s header store, made if it has none yet (as setHeader makes it); undefined once its
 * head is written (setHeader then throws ERR_HTTP_HEADERS_SENT) or if Node keeps it elsewhere.
 */
function headerStore(response: ServerResponse): HeaderStore | undefined {
  if (OUT_HEADERS === undefined || response.headersSent) return undefined;
  const holder = response as unknown as Record<symbol, HeaderStore | null | undefined>;
  const store = holder[OUT_HEADERS];
  if (store === undefined) return undefined;
  return store ?? (holder[OUT_HEADERS] = Object.create(null) as HeaderStore);
}
