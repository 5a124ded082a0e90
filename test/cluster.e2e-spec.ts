import { resolve } from 'node:path';
import { PROCESS_TEST_TIMEOUT_MS, RunningProcess } from './helpers/child-process';
import { redisHealth, remaining } from './helpers/daily-limit';
import { depreciate, send } from './helpers/http';
import { describeWithTools } from './helpers/system-tools';
import { waitFor } from './helpers/wait';

const LIMIT = 5;
const SCRIPT = resolve(__dirname, '../scripts/cluster.js');

describeWithTools(['redis-server', 'nginx'], 'npm run cluster: nginx, two instances, Redis', () => {
  let cluster: RunningProcess;
  let port: number;

  beforeAll(async () => {
    cluster = RunningProcess.start(process.execPath, [SCRIPT], {
      env: {
        PATH: process.env.PATH,
        CLUSTER_PORT: '0',
        RATE_LIMIT_PER_DAY: String(LIMIT),
        LOG_LEVEL: 'warn',
        NO_COLOR: '1',
      },
    });
    const ready = /ready at http:\/\/127\.0\.0\.1:(\d+)/;
    await waitFor(
      'the cluster to be ready',
      () => {
        if (cluster.hasExited) throw new Error(`cluster.js exited:\n${cluster.output}`);
        return Promise.resolve(ready.test(cluster.output));
      },
      20_000,
    );
    port = Number(ready.exec(cluster.output)![1]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(() => cluster?.stop(8_000), PROCESS_TEST_TIMEOUT_MS);

  it('shares one budget per client across the instances behind nginx, whatever it forwards', async () => {
    const answers = [];
    for (let i = 0; i <= LIMIT; i++) {
      // Forged X-Forwarded-For values: nginx appends the real address, the only hop trusted.
      const headers = { 'x-forwarded-for': `198.51.100.${i}` };
      answers.push(await depreciate(port, { from: '127.0.0.51', headers }));
    }
    // Round robin over two instances: only shared counters give one steady countdown.
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.slice(0, LIMIT).map(remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(remaining(await depreciate(port, { from: '127.0.0.52' }))).toBe(LIMIT - 1);
    expect((await send({ port, path: '/health' })).json).toEqual(redisHealth(true));
  });
});
