import { Counter, Registry } from 'prom-client';
import type { AnswerRecord } from '../common/answer-record';
import { takesEveryMethod } from '../common/express-internals';
import { HistogramSeries, LatencyHistogram } from './latency-histogram';

/** The `route` label of a request no route handled: unknown paths, bodies refused before routing. */
const UNMATCHED_ROUTE = 'unmatched';

/** Latency buckets in seconds: an answer takes about a millisecond, so the low end is finer. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

type RequestLabels = 'method' | 'route' | 'status';

/** One series of http_requests_total: its count, and how much of it the Counter has been told. */
interface StatusSeries {
  labels: Record<RequestLabels, string | number>;
  count: number;
  flushed: number;
}

/** The labelled children of one route and method, created on first use. */
interface RouteMethodChildren {
  route: string;
  duration: HistogramSeries;
  byStatus: Map<number, StatusSeries>;
}

/** What metrics read of Express's `req.route`: its pattern and the methods it takes. */
interface ExpressRoute {
  path?: unknown;
  methods?: Partial<Record<string, boolean>>;
}

/**
 * The pattern of the route whose handler answered, or UNMATCHED_ROUTE. `req.route` alone can
 * mislead: Nest mounts a module's middleware (`consumer.apply()`) with `app.all()`, a route taking every method
 * that stays in `req.route` when no handler takes the request, and Express matches a HEAD request
 * against a route of the path without GET. (An `@All()` handler is labelled `unmatched` too.)
 */
function routeLabel(route: ExpressRoute | undefined, method: string): string {
  if (route === undefined || typeof route.path !== 'string') return UNMATCHED_ROUTE;
  const methods = route.methods ?? {};
  if (takesEveryMethod(methods) || (methods.get && methods.post && methods.delete)) {
    return UNMATCHED_ROUTE;
  }
  if (method === 'HEAD' && !methods.head && !methods.get) return UNMATCHED_ROUTE;
  return route.path;
}

/**
 * The per-request metrics, recorded through the edge once an answer is sent whole, so they also
 * count answers made before routing (413, 408, malformed JSON, CORS preflight, 404) and on the
 * metrics server. The labels are
 * the route pattern (never the raw URL), the method and the status: all bounded, and enough for
 * any status's count (429s, 400s: `http_requests_total{status="429"}`). Labelled children are
 * cached in nested Maps, so a request builds no label objects; a request's count is one addition,
 * handed to the Counter in its `collect()` before each scrape (prom-client hashes the labels on
 * every `inc`), in the order the series were first seen, so the exposition is the same. The
 * latency is observed into a LatencyHistogram's series, held with the children.
 */
export class HttpMetrics {
  private readonly requests: Counter<RequestLabels>;
  private readonly duration: LatencyHistogram;
  private readonly children = new Map<string, Map<string, RouteMethodChildren>>();
  /** Every series of http_requests_total, in the order first seen. */
  private readonly series: StatusSeries[] = [];

  constructor(registry: Registry) {
    const registers = [registry];
    const series = this.series;
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
      collect(this: Counter<RequestLabels>) {
        for (const one of series) {
          if (one.count === one.flushed) continue;
          this.inc(one.labels, one.count - one.flushed);
          one.flushed = one.count;
        }
      },
    });
    this.duration = new LatencyHistogram({
      name: 'http_request_duration_seconds',
      help: 'Time from the request reaching the application to the end of its answer, in seconds.',
      buckets: LATENCY_BUCKETS,
      registry,
    });
  }

  /** The edge's observer: an answer sent whole is counted and timed; an abort is not. */
  readonly record = (answer: AnswerRecord): void => {
    const { method, status, elapsedMs } = answer;
    if (!answer.completed || status === null) return;
    const children = this.childrenOf(routeLabel(answer.route as ExpressRoute, method), method);
    let requests = children.byStatus.get(status);
    if (requests === undefined) {
      requests = { labels: { method, route: children.route, status }, count: 0, flushed: 0 };
      children.byStatus.set(status, requests);
      this.series.push(requests);
    }
    requests.count += 1;
    children.duration.observe(elapsedMs / 1000);
  };

  private childrenOf(route: string, method: string): RouteMethodChildren {
    let byMethod = this.children.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.children.set(route, byMethod);
    }
    let children = byMethod.get(method);
    if (children === undefined) {
      children = { route, duration: this.duration.series({ method, route }), byStatus: new Map() };
      byMethod.set(method, children);
    }
    return children;
  }
}
