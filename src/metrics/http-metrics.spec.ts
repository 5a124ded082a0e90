import { Counter, Registry } from 'prom-client';
import type { AnswerRecord } from '../common/answer-record';
import { HttpMetrics } from './http-metrics';

const ROUTE = { path: '/api/depreciate', methods: { post: true } };
const answer = (status: number, method = 'POST', route: unknown = ROUTE): AnswerRecord => ({
  method,
  path: '/api/depreciate',
  route,
  status,
  completed: true,
  elapsedMs: 1.2,
});

/** The exposition prom-client gives when every answer is counted at once with `inc`. */
async function countedAtOnce(answers: AnswerRecord[]): Promise<string> {
  const registry = new Registry();
  const counter = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  for (const { method, route, status } of answers) {
    const label = route === ROUTE ? ROUTE.path : 'unmatched';
    counter.inc({ method, route: label, status: status ?? 0 });
  }
  return registry.metrics();
}

/**
 * http_requests_total is counted per request with one addition and handed to prom-client before
 * each scrape: the exposition must be what prom-client's own `inc` per request gives, scrape after
 * scrape.
 */
describe('HttpMetrics', () => {
  it('exposes http_requests_total as counting each answer at once would, across scrapes', async () => {
    const registry = new Registry();
    const metrics = new HttpMetrics(registry);
    const first = [answer(200), answer(429), answer(200), answer(404, 'GET', undefined)];
    const second = [answer(429), answer(400), answer(200)];
    const only = async (from: Registry) =>
      (await from.getSingleMetricAsString('http_requests_total')).trim();
    first.forEach(metrics.record);
    expect(await only(registry)).toBe((await countedAtOnce(first)).trim());
    second.forEach(metrics.record);
    expect(await only(registry)).toBe((await countedAtOnce([...first, ...second])).trim());
    // A scrape with nothing new changes nothing.
    expect(await only(registry)).toBe((await countedAtOnce([...first, ...second])).trim());
  });
});
