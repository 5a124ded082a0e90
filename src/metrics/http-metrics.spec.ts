import { Registry } from 'prom-client';
import type { AnswerRecord } from '../common/answer-record';
import { httpMetrics } from './http-metrics';

const ROUTE = { path: '/api/depreciate', methods: { post: true } };
const answer = (status: number | null, method = 'POST', route: unknown = ROUTE): AnswerRecord => ({
  method,
  path: '/api/depreciate',
  route,
  status,
  completed: true,
  elapsedMs: 1.2,
});

/** The value of each series of `name`, keyed by its labels. */
async function values(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric(name)?.get();
  // A histogram's samples name their series (_bucket, _sum, _count); a counter's do not.
  const samples = (metric?.values ?? []) as {
    labels: object;
    value: number;
    metricName?: string;
  }[];
  const entries = samples
    .filter(({ metricName }) => metricName === undefined || !metricName.endsWith('_bucket'))
    .map(({ labels, value, metricName }) => [
      `${metricName ?? name}${JSON.stringify(labels)}`,
      value,
    ]);
  return Object.fromEntries(entries) as Record<string, number>;
}

describe('httpMetrics', () => {
  it('counts and times each answer sent whole by route pattern, method and status', async () => {
    const registry = new Registry();
    const record = httpMetrics(registry);
    [answer(200), answer(429), answer(200), { ...answer(404, 'GET'), route: undefined }].forEach(
      record,
    );
    // Neither an answer the client left before nor one with no status line is counted.
    record({ ...answer(200), completed: false });
    record(answer(null));
    expect(await values(registry, 'http_requests_total')).toEqual({
      'http_requests_total{"method":"POST","route":"/api/depreciate","status":200}': 2,
      'http_requests_total{"method":"POST","route":"/api/depreciate","status":429}': 1,
      'http_requests_total{"method":"GET","route":"unmatched","status":404}': 1,
    });
    expect(await values(registry, 'http_request_duration_seconds')).toEqual({
      'http_request_duration_seconds_sum{"method":"POST","route":"/api/depreciate"}': 0.0036,
      'http_request_duration_seconds_count{"method":"POST","route":"/api/depreciate"}': 3,
      'http_request_duration_seconds_sum{"method":"GET","route":"unmatched"}': 0.0012,
      'http_request_duration_seconds_count{"method":"GET","route":"unmatched"}': 1,
    });
  });

  it.each([
    [
      'a route taking every method (Nest middleware)',
      'GET',
      { path: '/x', methods: { _all: true } },
    ],
    ['HEAD on a route without GET', 'HEAD', { path: '/x', methods: { post: true } }],
    ['a route without a pattern', 'GET', { methods: { get: true } }],
  ])('labels %s unmatched', async (_, method, route) => {
    const registry = new Registry();
    httpMetrics(registry)(answer(404, method, route));
    expect(Object.keys(await values(registry, 'http_requests_total'))).toEqual([
      `http_requests_total{"method":"${method}","route":"unmatched","status":404}`,
    ]);
  });
});
