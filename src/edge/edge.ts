import { readFileSync } from 'node:fs';
import type { RequestListener, Server } from 'node:http';
import type { AnswerObserver } from '../common/answer-record';
import type { ErrorResponses } from '../common/error-responses';
import { CHECKED_ON, type TrustProxy } from '../common/platform-internals';
import type { Environment } from '../config/environment';
import { admitConnections, admitRequests } from './admission';
import { ConnectionCap, type Edge } from './connection';
import { enableGracefulShutdown, type ShutdownHooks } from './shutdown';
import { answerClientError } from './socket-answers';

/**
 * The configured ceiling, else 90 % of the descriptor limit (the rest for files, Redis and logs).
 * Past it Node closes a connection at accept: the only connection closed without an answer.
 */
function connectionCeiling(configured: number): number {
  if (configured > 0) return configured;
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (line) return Math.max(16, Math.floor(Number(line[1]) * 0.9));
  } catch {
    // No /proc/self/limits to read: the default below.
  }
  return 10_000;
}

/** What the edge is configured with (docs/operations.md, "Robustness"), read once from config. */
export const EDGE_SETTINGS = [
  'MAX_CONNECTIONS',
  'MAX_CONNECTIONS_PER_CLIENT',
  'CONNECTION_REFUSALS_PER_CLIENT',
  'CONNECTION_REFUSAL_TIMEOUT_MS',
  'MAX_PIPELINED_REQUESTS',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'KEEP_ALIVE_TIMEOUT_MS',
  'LINGERING_TIME_MS',
  'LINGERING_TIMEOUT_MS',
  'SHUTDOWN_TIMEOUT_MS',
  'SHUTDOWN_DRAIN_DELAY_MS',
] as const;
export type EdgeSettings = Pick<Environment, (typeof EDGE_SETTINGS)[number]>;

export interface EdgeOptions extends EdgeSettings {
  /** The error writer, whose `onClosing` it sets. */
  errors: ErrorResponses;
  observers: AnswerObserver[];
  /** The API server's listener in a span per request (tracing.ts); the metrics server has none. */
  serverSpans?: (listener: RequestListener) => RequestListener;
  /** TRUST_PROXY as Express compiled it: its proxies are exempt from the per-client cap. */
  trustProxy: TrustProxy;
  /** main.ts only: the signals drain the public server, then close the application. */
  shutDownOnSignals?: ShutdownHooks;
}

/**
 * Puts each server behind the edge (limits, refusals with the error body, lingering closes): its
 * 'request' listeners run only for requests the edge admits. The metrics server trusts no proxy.
 */
export function installEdge(servers: { api: Server; metrics?: Server }, options: EdgeOptions) {
  const edge = putBehindEdge(servers.api, options);
  const metrics =
    servers.metrics &&
    putBehindEdge(servers.metrics, { ...options, trustProxy: () => false, serverSpans: undefined });
  options.errors.onClosing = (socket) =>
    (edge.bySocket.get(socket) ?? metrics?.bySocket.get(socket))?.markClosing();
  if (options.shutDownOnSignals) enableGracefulShutdown(edge, options.shutDownOnSignals);
  return edge;
}

function putBehindEdge(server: Server, options: EdgeOptions): Edge {
  const { serverSpans: spans = (listener: RequestListener) => listener } = options;
  const edge: Edge = {
    ...options,
    server,
    cap: new ConnectionCap(options),
    bySocket: new WeakMap(),
    connections: new Set(),
    closeAnswers: false,
  };
  server.maxConnections = connectionCeiling(options.MAX_CONNECTIONS);
  server.headersTimeout = options.HEADERS_TIMEOUT_MS;
  server.requestTimeout = options.REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = options.KEEP_ALIVE_TIMEOUT_MS;
  checkTimeoutsEvery(server, Math.min(1_000, options.HEADERS_TIMEOUT_MS));
  server.on('connection', admitConnections(edge, options.CONNECTION_REFUSAL_TIMEOUT_MS));
  server.on('clientError', (error, socket) => answerClientError(edge, error, socket));
  // No `100 Continue` before the headers are judged: the body reader sends it when it reads.
  server.on('checkContinue', (request, response) => server.emit('request', request, response));
  // An `Expect` other than 100-continue is ignored, as RFC 9110 §10.1.1 allows, not a bare 417.
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  const handlers = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', spans(admitRequests(edge, handlers)));
  return edge;
}

/**
 * Private `connectionsCheckingInterval`, how often Node checks the timeouts: a createServer option,
 * set on the server because Nest's adapter creates it before the configuration is read.
 */
export function checkTimeoutsEvery(server: Server, ms: number): void {
  const own = server as unknown as { connectionsCheckingInterval?: unknown };
  if (typeof own.connectionsCheckingInterval !== 'number') {
    const checked = `checked on Node ${CHECKED_ON.node}`;
    throw new Error(`http.Server has no number \`connectionsCheckingInterval\` (${checked})`);
  }
  own.connectionsCheckingInterval = ms;
}
