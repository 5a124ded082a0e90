import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/**
 * Every private or undocumented property of Node the edge relies on, and nothing else: Node has no
 * public API for what the edge needs (a lingering close, a parser that stops at a request, its own answer to
 * a request without Host, a say in every answer's head), so the edge reaches into what Node keeps.
 * Checked on Node 24.21.0 (lib/_http_server.js, lib/_http_outgoing.js, lib/net.js); Express's are
 * in common/express-internals.ts. internals.spec.ts checks each one on a real server and socket,
 * and names the property that moved.
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
