import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AnswerObserver } from '../common/answer-record';
import type { ErrorResponses } from '../common/error-responses';
import { CHECKED_ON, type TrustProxy } from '../common/platform-internals';
import { admitConnections, admitRequests, type Handler } from './admission';
import { answerClientError } from './client-error';
import { ConnectionCap, type EdgeContext, type LingeringBounds, markClosing } from './connection';
import {
  type Edge,
  enableGracefulShutdown,
  type ShutdownBounds,
  type ShutdownHooks,
} from './shutdown';

/** The limits one HTTP server holds its connections to (docs/operations.md, "Robustness"). */
interface ConnectionLimits {
  /** Connections open at once, all clients together; 0: 90 % of the descriptor limit. */
  maxConnections: number;
  /** Connections open at once from one client address (an IPv6 /64). */
  maxConnectionsPerClient: number;
  /** Connections past that per-client cap still answered 503 (the rest are closed at accept). */
  connectionRefusalsPerClient: number;
  /** How long such a connection may take to send a request's headers before its 503 anyway. */
  connectionRefusalTimeoutMs: number;
  /** Requests one connection may have waiting for their answers (pipelining depth). */
  maxPipelinedRequests: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

function descriptorLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The configured ceiling, else 90 % of the descriptor limit (the rest for files, Redis and logs).
 * Past it Node closes a connection at accept: the only connection closed without an answer.
 */
function connectionCeiling(configured: number): number {
  if (configured > 0) return configured;
  const descriptors = descriptorLimit();
  return descriptors === undefined ? 10_000 : Math.max(16, Math.floor(descriptors * 0.9));
}

/** What the edge is configured with (docs/operations.md, "Robustness"), read once from config. */
export interface EdgeSettings {
  limits: ConnectionLimits;
  /** Its times; how much it reads is the body limit. */
  lingering: Omit<LingeringBounds, 'bytes'>;
  shutdown: ShutdownBounds;
}

interface EdgeOptions extends EdgeSettings {
  errors: ErrorResponses;
  observers: AnswerObserver[];
  /** The API server's listener in a span per request (tracing.ts); the metrics server has none. */
  serverSpans?: (listener: Handler) => Handler;
  /** TRUST_PROXY as Express compiled it: its proxies are exempt from the per-client cap. */
  trustProxy: TrustProxy;
  /** main.ts only: the signals drain the public server, then close the application. */
  shutDownOnSignals?: ShutdownHooks;
}

interface EdgeServers {
  api: Server;
  metrics?: Server;
}

/**
 * Puts each server behind the edge, everything between the socket and the application: limits,
 * refusals answered with the error body, lingering closes. The servers' 'request' listeners run
 * only for requests the edge admits. No proxy is trusted on the metrics server.
 */
export function installEdge(servers: EdgeServers, options: EdgeOptions): Edge {
  // An error response that closes its connection: what the client pipelined after it is not handled.
  options.errors.onClosing = markClosing;
  const edge = putBehindEdge(servers.api, options, options.trustProxy, options.serverSpans);
  if (servers.metrics) putBehindEdge(servers.metrics, options, () => false);
  if (options.shutDownOnSignals) {
    enableGracefulShutdown(edge, options.shutdown, options.shutDownOnSignals);
  }
  return edge;
}

function putBehindEdge(
  server: Server,
  options: EdgeOptions,
  trustProxy: TrustProxy,
  spans: (listener: Handler) => Handler = (listener) => listener,
): Edge {
  const { limits, observers, errors } = options;
  const lingering: LingeringBounds = { ...options.lingering, bytes: errors.settings.bodyLimit };
  const cap = new ConnectionCap(limits, trustProxy);
  const context: EdgeContext = { observers, lingering, errors, connections: new Set(), cap };
  const edge: Edge = { server, connections: context.connections, lingering, closeAnswers: false };
  applyLimits(server, limits);
  server.on('connection', admitConnections(context, limits.connectionRefusalTimeoutMs));
  answerWhatNodeRefuses(server);
  // The application's listeners run behind the edge's.
  const handlers = server.listeners('request') as Handler[];
  server.removeAllListeners('request');
  server.on('request', spans(admitRequests(edge, context, handlers, limits.maxPipelinedRequests)));
  return edge;
}

/**
 * Nest's adapter creates the server before the configuration is read, so an option only
 * createServer takes and that depends on it is set on the server before it listens.
 */
function setOwn(server: Server, name: string, type: string, value: unknown): void {
  const own = server as unknown as Record<string, unknown>;
  if (typeof own[name] !== type) {
    throw new Error(`http.Server has no ${type} \`${name}\` (checked on Node ${CHECKED_ON.node})`);
  }
  own[name] = value;
}

/** Private `connectionsCheckingInterval` (see setOwn): how often Node checks the timeouts. */
export const checkTimeoutsEvery = (server: Server, ms: number): void =>
  setOwn(server, 'connectionsCheckingInterval', 'number', ms);

function applyLimits(server: Server, limits: ConnectionLimits): void {
  server.maxConnections = connectionCeiling(limits.maxConnections);
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  checkTimeoutsEvery(server, Math.min(1_000, limits.headersTimeoutMs));
}

function answerWhatNodeRefuses(server: Server): void {
  server.on('clientError', answerClientError);
  // No `100 Continue` before the headers are judged: the body reader sends it when it reads.
  server.on('checkContinue', (request, response) => server.emit('request', request, response));
  // An `Expect` other than 100-continue is ignored, as RFC 9110 §10.1.1 allows, not a bare 417.
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
}
