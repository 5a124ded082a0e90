import { Counter, Histogram, type Registry } from 'prom-client';
import type { AnswerRecord } from '../common/answer-record';
import { takesEveryMethod } from '../common/platform-internals';

export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds: an answer takes about a millisecond, so the low end is finer. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface ExpressRoute {
  path?: unknown;
  methods?: Partial<Record<string, boolean>>;
}

/**
 * Nest mounts middleware with `app.all()`, which stays in `req.route` when no handler took the
 * request, and Express matches HEAD against a route without GET. An `@All()` handler is unmatched.
 */
export function routeLabel(matched: unknown, method: string): string {
  const route = matched as ExpressRoute | undefined;
  if (route === undefined || typeof route.path !== 'string') return UNMATCHED_ROUTE;
  const methods = route.methods ?? {};
  if (takesEveryMethod(methods) || (methods.get && methods.post && methods.delete))
    return UNMATCHED_ROUTE;
  if (method === 'HEAD' && !methods.head && !methods.get) return UNMATCHED_ROUTE;
  return route.path;
}

/** Told by the edge, so answers made before routing count too. The route pattern bounds labels. */
export function httpMetrics(registry: Registry): (answer: AnswerRecord) => void {
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request reaching the application to the end of its answer, in seconds.',
    labelNames: ['method', 'route'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return ({ method, status, elapsedMs, completed, route }) => {
    if (!completed || status === null) return;
    const labels = { method, route: routeLabel(route, method) };
    requests.inc({ ...labels, status });
    duration.observe(labels, elapsedMs / 1000);
  };
}
