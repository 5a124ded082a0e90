import { resolve } from 'node:path';
import { PROCESS_TEST_TIMEOUT_MS, RunningProcess } from '../src/testing/processes';
import { nextClient } from '../src/testing/clients';
import { health, redisHealth, remaining } from '../src/testing/daily-limit';
import { depreciate } from '../src/testing/http';
import { parseResponses, RawConnection, rawRequest } from '../src/testing/raw-http';
import { describeWithTools } from '../src/testing/system-tools';

const LIMIT = 5;
const PER_CLIENT_CONNECTIONS = 4;
const SCRIPT = resolve(__dirname, '../scripts/cluster.js');
const forged = (i: number) => ({ 'x-forwarded-for': `198.51.100.${i}` });

describeWithTools(['redis-server', 'nginx'], 'npm run cluster: nginx, two instances, Redis', () => {
  let cluster: RunningProcess;
  let port: number;
  let instances: number[];

  beforeAll(async () => {
    cluster = RunningProcess.start(process.execPath, [SCRIPT], {
      name: 'cluster.js',
      env: {
        PATH: process.env.PATH,
        CLUSTER_PORT: '0',
        RATE_LIMIT_PER_DAY: String(LIMIT),
        // cluster.js hands its environment on to the instances.
        MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT_CONNECTIONS),
        LOG_LEVEL: 'warn',
        NO_COLOR: '1',
      },
    });
    const ready = /ready at http:\/\/127\.0\.0\.1:(\d+) \(nginx -> ([^;]+);/;
    const isReady = () => Promise.resolve(ready.test(cluster.output));
    await cluster.until('the cluster to be ready', isReady, 20_000);
    const [, nginx, upstreams] = ready.exec(cluster.output)!;
    port = Number(nginx);
    instances = upstreams.split(', ').map((upstream) => Number(upstream.split(':')[1]));
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(() => cluster?.stop(8_000), PROCESS_TEST_TIMEOUT_MS);

  it('shares one budget per client across the instances behind nginx, whatever it forwards', async () => {
    const another = nextClient();
    const client = nextClient();
    const answers = [];
    for (let i = 0; i <= LIMIT; i++) {
      // Forged X-Forwarded-For values: nginx appends the real address, and only nginx is trusted.
      answers.push(await depreciate(port, { from: client, headers: forged(i) }));
    }
    // Round robin over two instances: only shared counters give one steady countdown.
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.slice(0, LIMIT).map(remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(remaining(await depreciate(port, { from: another }))).toBe(LIMIT - 1);
    expect(await health(port)).toEqual(redisHealth(true));
  });

  it('counts a client that reaches an instance directly by its own address, whatever it forges', async () => {
    const client = nextClient();
    // Instances are on loopback like nginx: only nginx's own address (127.0.0.2) may name a client.
    const answers = [];
    for (let i = 0; i <= LIMIT; i++) {
      answers.push(await depreciate(instances[0], { from: client, headers: forged(i) }));
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.slice(0, LIMIT).map(remaining)).toEqual([4, 3, 2, 1, 0]);
  });

  it('gives a client one budget, directly or through nginx', async () => {
    const from = nextClient();
    const direct = await depreciate(instances[1], { from, headers: forged(54) });
    const proxied = await depreciate(port, { from, headers: forged(55) });
    expect([remaining(direct), remaining(proxied)]).toEqual([LIMIT - 1, LIMIT - 2]);
  });

  it('holds a client that connects directly to MAX_CONNECTIONS_PER_CLIENT', async () => {
    const client = nextClient();
    const opened = await Promise.all(
      Array.from({ length: PER_CLIENT_CONNECTIONS + 2 }, () =>
        RawConnection.open({ port: instances[0], localAddress: client }),
      ),
    );
    // Kept alive after their answers, the served connections still hold the cap for one the
    // instance takes from its backlog late: no need to know when each was accepted.
    const request = rawRequest('GET', '/health/live');
    await Promise.all(opened.map((connection) => connection.write(request)));
    const answered = (received: Buffer) =>
      /^HTTP\/1\.1 \d{3}[^]*\r\n\r\n\{.*\}$/.test(String(received));
    await Promise.all(opened.map((connection) => connection.until(answered)));
    for (const connection of opened) connection.close();
    const statuses = opened.map((connection) => parseResponses(connection.received)[0].status);
    // Not exempt as nginx is: the connections past the cap are answered 503.
    expect(statuses.sort()).toEqual([...Array<number>(PER_CLIENT_CONNECTIONS).fill(200), 503, 503]);
  });
});
