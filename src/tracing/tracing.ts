import type { OnApplicationShutdown } from '@nestjs/common';
import type { Attributes, Span } from '@opentelemetry/api';
import type { IncomingMessage, RequestListener } from 'node:http';
import { type AnswerRecord, originForm, pathOf } from '../common/answer-record';
import { routeLabel, UNMATCHED_ROUTE } from '../metrics/http-metrics';
import type { Sdk } from './otel-sdk';
import type { TracingSettings } from './tracing-settings';

/** The request's server span, for the answer's record (answer-record.ts) and the log's ids. */
type TracedRequest = IncomingMessage & { span?: Span };

/** The SDK's export on shutdown waits no longer: the drain's time is the clients'. */
const SHUTDOWN_FLUSH_MS = 2_000;
/** The semantic conventions' methods: any other is `_OTHER` (span name, http.request.method). */
const KNOWN_METHODS = new Set('CONNECT DELETE GET HEAD OPTIONS PATCH POST PUT TRACE'.split(' '));
const methodOf = (method = ''): string => (KNOWN_METHODS.has(method) ? method : '_OTHER');

/**
 * OpenTelemetry traces (docs/operations.md, "Traces"): a server span per request the API server
 * parses, a client span per Redis round trip of the daily limit; off, every method passes through.
 */
export class Tracing implements OnApplicationShutdown {
  private constructor(private readonly sdk?: Sdk) {}

  static async start(settings: TracingSettings | undefined): Promise<Tracing> {
    if (settings === undefined) return new Tracing();
    // Its own file, imported only here: unset, nothing of the SDK is read.
    const { loadSdk } = await import('./otel-sdk.js');
    return new Tracing(loadSdk(settings));
  }

  get on(): boolean {
    return this.sdk !== undefined;
  }

  /** The API server's request listener, run in its request's span (continuing a traceparent). */
  serverSpans(listener: RequestListener): RequestListener {
    if (this.sdk === undefined) return listener;
    const { api, tracer } = this.sdk;
    return (request: TracedRequest, response) => {
      const parent = api.propagation.extract(api.ROOT_CONTEXT, request.headers);
      const method = request.method ?? '';
      const span = tracer.startSpan(methodOf(method), { kind: api.SpanKind.SERVER }, parent);
      request.span = span;
      // Sampled out: no attributes, no child span, so no context to carry (bench/README.md, "Traces").
      if (!span.isRecording()) return listener(request, response);
      span.setAttributes({
        'http.request.method': methodOf(method),
        ...(!KNOWN_METHODS.has(method) && { 'http.request.method_original': method }),
        'url.path': pathOf(originForm(request.url ?? '')),
        'url.scheme': 'encrypted' in request.socket ? 'https' : 'http',
        'network.protocol.version': request.httpVersion,
      });
      const active = api.trace.setSpan(parent, span);
      // The body's events come from the socket's parser: bound, what they continue keeps the span.
      api.context.bind(active, request);
      api.context.with(active, listener, undefined, request, response);
    };
  }

  /** The answer observer that ends each request's span with its status and route. */
  readonly endSpans = (answer: AnswerRecord): void => {
    const span = answer.span;
    if (span === undefined || this.sdk === undefined || !span.isRecording()) return;
    const route = routeLabel(answer.route, answer.method);
    if (route !== UNMATCHED_ROUTE) {
      span.setAttribute('http.route', route);
      span.updateName(`${methodOf(answer.method)} ${route}`);
    }
    if (answer.status !== null) span.setAttribute('http.response.status_code', answer.status);
    // A server span is an error for a 5xx, or when the client left before any status line.
    if (answer.status === null || answer.status >= 500) {
      span.setAttribute('error.type', answer.status === null ? 'aborted' : String(answer.status));
      span.setStatus({ code: this.sdk.api.SpanStatusCode.ERROR });
    }
    span.end();
  };

  /**
   * `call` in a client span, a child of the request's: Redis's round trips show in its trace. None
   * outside a recorded request's (a sampled-out request, the store's own recovery).
   */
  async clientSpan<T>(name: string, attributes: Attributes, call: () => Promise<T>): Promise<T> {
    if (this.sdk === undefined || !this.sdk.api.trace.getActiveSpan()?.isRecording()) return call();
    const { api, tracer } = this.sdk;
    const span = tracer.startSpan(name, { kind: api.SpanKind.CLIENT, attributes });
    try {
      return await call();
    } catch (error) {
      span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
      span.setStatus({ code: api.SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.sdk === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS)));
    await Promise.race([this.sdk.provider.shutdown().catch(() => undefined), late]);
    clearTimeout(timer);
  }
}
