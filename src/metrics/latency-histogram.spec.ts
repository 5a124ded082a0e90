import { Histogram, Registry } from 'prom-client';
import { LatencyHistogram } from './latency-histogram';

const NAME = 'request_seconds';
const HELP = 'Time taken.';
const BUCKETS = [0.001, 0.01, 0.1, 0.5];
const GET = { method: 'GET', route: '/a' };
const POST = { method: 'POST', route: '/b "quoted"' };
/** On a bound, between bounds, below the first, above the last, zero. */
const OBSERVED: [typeof GET, number][] = [
  [GET, 0.001],
  [POST, 0.05],
  [GET, 0.0002],
  [GET, 7],
  [POST, 0],
  [GET, 0.1],
  [POST, 0.5],
];

/** The same observations in prom-client's own Histogram, and in ours, each in its registry. */
function bothHistograms(): { theirs: Registry; ours: Registry; histogram: LatencyHistogram } {
  const theirs = new Registry();
  const reference = new Histogram({
    name: NAME,
    help: HELP,
    labelNames: ['method', 'route'],
    buckets: BUCKETS,
    registers: [theirs],
  });
  const ours = new Registry();
  const histogram = new LatencyHistogram({
    name: NAME,
    help: HELP,
    buckets: BUCKETS,
    registry: ours,
  });
  const series = new Map([GET, POST].map((labels) => [labels, histogram.series(labels)]));
  for (const [labels, value] of OBSERVED) {
    reference.observe(labels, value);
    series.get(labels)?.observe(value);
  }
  return { theirs, ours, histogram };
}

describe('LatencyHistogram', () => {
  it("is exposed as prom-client's Histogram exposes the same observations: text and JSON", async () => {
    const { theirs, ours } = bothHistograms();
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain(`${NAME}_bucket{le="0.001",method="GET",route="/a"} 2`);
    expect(text).toContain(`${NAME}_bucket{le="+Inf",method="GET",route="/a"} 4`);
    expect(text).toContain(`${NAME}_sum{method="POST",route="/b \\"quoted\\""} 0.55`);
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    expect(await ours.getSingleMetricAsString(NAME)).toBe(
      await theirs.getSingleMetricAsString(NAME),
    );
  });

  // prom-client's Histogram takes its buckets in the order given, so unsorted ones misplace values.
  it('takes the buckets in any order and counts a value on a bound in that bound', async () => {
    const registry = new Registry();
    const histogram = new LatencyHistogram({ name: NAME, help: HELP, buckets: [2, 1], registry });
    const series = histogram.series({ method: 'GET' });
    [1, 1.5, 2, 3].forEach((value) => series.observe(value));
    const samples = (await histogram.get()).values.map(({ labels, value }) => [labels.le, value]);
    expect(samples.slice(0, 3)).toEqual([
      [1, 1],
      [2, 3],
      ['+Inf', 4],
    ]);
  });

  it("goes back to zero on the registry's resetMetrics, its series still listed", async () => {
    const { ours } = bothHistograms();
    ours.resetMetrics();
    const text = await ours.metrics();
    expect(text).toContain(`${NAME}_count{method="GET",route="/a"} 0`);
    expect(text).toContain(`${NAME}_bucket{le="+Inf",method="POST",route="/b \\"quoted\\""} 0`);
    expect(text).not.toMatch(/ [1-9]/);
  });

  it('refuses a second metric of its name in one registry, as prom-client does', () => {
    const registry = new Registry();
    new LatencyHistogram({ name: NAME, help: HELP, buckets: BUCKETS, registry });
    expect(
      () => new Histogram({ name: NAME, help: HELP, buckets: BUCKETS, registers: [registry] }),
    ).toThrow(/already been registered/);
  });
});
