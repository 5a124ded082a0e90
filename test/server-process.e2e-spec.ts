import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AddressInfo, createServer, Server } from 'node:net';
import { README_EXAMPLE_REQUEST } from '../src/testing/readme-example';
import { answerAt, limited } from '../src/testing/bodies';
import { nextClient } from '../src/testing/clients';
import { depreciate, send } from '../src/testing/http';
import { freePort, sleep } from '../src/testing/processes';
import { tryConnect } from '../src/testing/raw-http';
import { runToExit, ServerProcess, startServer } from '../src/testing/server-process';
import { describeIsolated, ISOLATED_NETWORK } from '../src/testing/system-tools';

/** A documented answer of /docs-json: its JSON example and its headers' examples. */
interface Documented {
  content: { 'application/json': { example: unknown } };
  headers: Record<string, { schema: { example: unknown } }>;
}

describe('the built server as a process (node dist/main.js)', () => {
  describe('started with RATE_LIMIT_PER_DAY=3', () => {
    let server: ServerProcess;

    beforeAll(async () => {
      server = await startServer({ RATE_LIMIT_PER_DAY: '3' });
    });

    afterAll(() => server.stop());

    it('answers the README example over HTTP', async () => {
      const before = new Date().toISOString();
      const answer = await depreciate(server.port, { body: README_EXAMPLE_REQUEST });
      const after = new Date().toISOString();
      expect(answer.status).toBe(200);
      // Valued now, by the system clock: the whole answer is the model's for that instant.
      const { calculatedAt } = (answer.json as { meta: { calculatedAt: string } }).meta;
      expect([before <= calculatedAt, calculatedAt <= after]).toEqual([true, true]);
      expect(answer.json).toEqual(answerAt(README_EXAMPLE_REQUEST, calculatedAt));
      expect(answer.headers['x-powered-by']).toBeUndefined();
      expect(answer.headers['x-ratelimit-limit']).toBe('3');
    });

    it('states the configured limit in the 429', async () => {
      const invalid = { body: {}, from: nextClient() };
      for (let i = 0; i < 3; i++) await depreciate(server.port, invalid);
      const refused = await depreciate(server.port, invalid);
      expect(refused.status).toBe(429);
      expect(refused.text).toBe(JSON.stringify(limited(3)));
    });

    it('serves the docs, whose examples state the configured limit: the 429 body, the headers', async () => {
      const docs = await send({ port: server.port, path: '/docs-json' });
      expect(docs.status).toBe(200);
      const { paths } = docs.json as {
        paths: Record<string, { post: { responses: Record<string, Documented> } }>;
      };
      expect(Object.keys(paths)).toEqual(['/api/depreciate']);
      const { responses } = paths['/api/depreciate'].post;
      expect(responses['429'].content['application/json'].example).toEqual(limited(3));
      const examples = (status: string) =>
        Object.fromEntries(
          Object.entries(responses[status].headers).map(([name, h]) => [name, h.schema.example]),
        );
      expect(examples('200')).toEqual({
        'X-RateLimit-Limit': 3,
        'X-RateLimit-Remaining': 2,
        'X-RateLimit-Reset': 52_200,
        'RateLimit-Policy': '"daily";q=3;w=86400',
        RateLimit: '"daily";r=2;t=52200',
      });
      expect(examples('429')).toEqual({
        'X-RateLimit-Limit': 3,
        'X-RateLimit-Remaining': 0,
        'X-RateLimit-Reset': 52_200,
        'RateLimit-Policy': '"daily";q=3;w=86400',
        RateLimit: '"daily";r=0;t=52200',
        'Retry-After': 52_200,
      });
    });
  });

  it.each([
    ['PORT', 'abc', 'Invalid configuration: PORT="abc" must be an integer from 0 to 65535'],
    [
      'RATE_LIMIT_PER_DAY',
      '-5',
      'Invalid configuration: RATE_LIMIT_PER_DAY="-5" must be a whole number of requests, from 1 to 9007199254740991',
    ],
    [
      'LOG_LEVEL',
      'chatty',
      'Invalid configuration: LOG_LEVEL="chatty" must be one of silent, fatal, error, warn, info, debug, verbose',
    ],
  ])('refuses to start with %s=%s, in one line naming it', async (name, value, message) => {
    const { code, stderr } = await runToExit({ [name]: value });
    expect(code).toBe(1);
    expect(stderr).toBe(`${message}\n`);
  });

  describe('settings that pass their pattern but cannot be used', () => {
    const EVERY_ADDRESS =
      "trusts every address, as true would (any client could name itself in X-Forwarded-For): list only the proxies' addresses or ranges";
    const NOT_HERE = "address not available: none of this machine's interfaces has it";
    const LINK_LOCAL =
      'the system refuses this address (EINVAL): a link-local address needs its interface, e.g. fe80::1%eth0';

    /** Each setting, and the one line it stops start-up with (`ports` as given to it). */
    const cases: Array<[string, string, (ports: Record<string, string>) => string]> = [
      [
        'HOST',
        '999.999.999.999',
        () => 'HOST="999.999.999.999" must be an IP address or a host name',
      ],
      [
        'METRICS_HOST',
        '999.999.999.999',
        () => 'METRICS_HOST="999.999.999.999" must be an IP address or a host name',
      ],
      // Asked of the kernel only: binding sends no packet.
      ['HOST', '10.9.9.9', ({ PORT }) => `Cannot listen on 10.9.9.9:${PORT} (HOST): ${NOT_HERE}`],
      [
        'METRICS_HOST',
        '10.9.9.9',
        ({ METRICS_PORT }) =>
          `Cannot listen on 10.9.9.9:${METRICS_PORT} (METRICS_HOST): ${NOT_HERE}`,
      ],
      ['HOST', 'fe80::1', ({ PORT }) => `Cannot listen on [fe80::1]:${PORT} (HOST): ${LINK_LOCAL}`],
      [
        'METRICS_HOST',
        'fe80::1',
        ({ METRICS_PORT }) =>
          `Cannot listen on [fe80::1]:${METRICS_PORT} (METRICS_HOST): ${LINK_LOCAL}`,
      ],
      ['TRUST_PROXY', '0.0.0.0/0', () => `TRUST_PROXY="0.0.0.0/0" ${EVERY_ADDRESS}`],
      ['TRUST_PROXY', '::/0', () => `TRUST_PROXY="::/0" ${EVERY_ADDRESS}`],
      [
        'TRUST_PROXY',
        '0.0.0.0/1,128.0.0.0/1',
        () => `TRUST_PROXY="0.0.0.0/1,128.0.0.0/1" ${EVERY_ADDRESS}`,
      ],
      ['TRUST_PROXY', '::/1,8000::/1', () => `TRUST_PROXY="::/1,8000::/1" ${EVERY_ADDRESS}`],
      [
        'MAX_CONNECTIONS',
        '1000001',
        () =>
          'MAX_CONNECTIONS="1000001" must be a whole number of connections (0: automatic), from 0 to 1000000',
      ],
      [
        'KEEP_ALIVE_TIMEOUT_MS',
        '3600001',
        () =>
          'KEEP_ALIVE_TIMEOUT_MS="3600001" must be a whole number of milliseconds, from 100 to 3600000',
      ],
    ];

    it.each(cases)('%s=%s stops start-up in one line, with no stack', async (name, value, line) => {
      const ports = { PORT: String(await freePort()), METRICS_PORT: String(await freePort()) };
      const run = await runToExit({ ...ports, [name]: value });
      const expected = line(ports);
      const prefix = expected.startsWith('Cannot') ? '' : 'Invalid configuration: ';
      expect([run.code, run.stderr]).toEqual([1, `${prefix}${expected}\n`]);
      expect(run.stdout).not.toMatch(/\bat .*\(.*:\d+:\d+\)/);
    });
  });

  // Looked up in a network namespace of its own: the query cannot leave the machine, and fails.
  describeIsolated('a host name that does not resolve', () => {
    it.each(['HOST', 'METRICS_HOST'])(
      '%s=nonexistent.invalid stops start-up in one line',
      async (name) => {
        const ports = { PORT: String(await freePort()), METRICS_PORT: String(await freePort()) };
        const run = await runToExit(
          { ...ports, [name]: 'nonexistent.invalid' },
          { within: ISOLATED_NETWORK },
        );
        const port = name === 'HOST' ? ports.PORT : ports.METRICS_PORT;
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          new RegExp(
            `^Cannot listen on nonexistent\\.invalid:${port} \\(${name}\\): the host name cannot be resolved \\((EAI_AGAIN|ENOTFOUND)\\)\\n$`,
          ),
        );
      },
    );
  });

  it('is one bundle, run with its code cache: a start and its answers load from node_modules only what the build leaves out', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'bundle-'));
    const loaded = join(temp, 'loaded.txt');
    const rejected = join(temp, 'rejected.txt');
    const preload = join(temp, 'record.cjs');
    // Node's module hooks see every module loaded after them, CommonJS or ESM; at the exit, whether
    // V8 refused the build's code cache (scripts/main-loader.cjs, dist/main.js, exports the script).
    writeFileSync(
      preload,
      `const { appendFileSync, writeFileSync } = require('node:fs');
      require('node:module').registerHooks({ load(url, context, next) {
        appendFileSync(${JSON.stringify(loaded)}, url + '\\n');
        return next(url, context);
      } });
      process.once('exit', () => writeFileSync(${JSON.stringify(rejected)},
        String(require.cache[process.argv[1]].exports.script.cachedDataRejected)));`,
    );
    try {
      const server = await startServer({ NODE_OPTIONS: `--require ${preload}`, LOG_LEVEL: 'info' });
      try {
        expect((await depreciate(server.port, { body: README_EXAMPLE_REQUEST })).status).toBe(200);
        expect((await send({ port: server.port, path: '/docs/' })).status).toBe(200);
        expect(server.stderr).toBe('');
        // Nest's classes keep their names in the bundle (it renamed InstanceLoader _InstanceLoader).
        const contexts = new Set(server.logLines().map((line) => line.context));
        for (const context of ['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory'])
          expect(contexts).toContain(context);
        expect([...contexts].filter((context) => /^_|\d$/.test(String(context)))).toEqual([]);
      } finally {
        await server.stop();
      }
      const packages = readFileSync(loaded, 'utf8')
        .split('\n')
        .map((url) => /\/node_modules\/((@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
        .filter((name) => name !== undefined);
      // prom-client's @opentelemetry/api, and Swagger UI's folder (scripts/bundle.cjs, EXTERNAL).
      expect([...new Set(packages)].sort()).toEqual(['@opentelemetry/api', 'swagger-ui-dist']);
      expect(readFileSync(rejected, 'utf8')).toBe('false');
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });

  describe('SIGUSR1', () => {
    /** Sends SIGUSR1 and gives Node time to open its inspector, were it to. */
    async function usr1(server: ServerProcess): Promise<void> {
      server.signal('SIGUSR1');
      await sleep(500);
    }

    it('opens no inspector when started as npm start does (--disable-sigusr1), and it serves on', async () => {
      const server = await startServer();
      try {
        await usr1(server);
        expect(await tryConnect(9229)).toBe('ECONNREFUSED');
        expect((await send({ port: server.port, path: '/health/live' })).status).toBe(200);
        expect(server.stderr).toBe('');
        expect(server.hasExited).toBe(false);
      } finally {
        await server.stop();
      }
    });

    it('opens no inspector started without the flag either, and says it ignored the signal', async () => {
      const server = await startServer({ LOG_LEVEL: 'info' }, { nodeFlags: [] });
      try {
        await usr1(server);
        expect(await tryConnect(9229)).toBe('ECONNREFUSED');
        expect((await send({ port: server.port, path: '/health/live' })).status).toBe(200);
        expect(server.stderr).toBe('');
        expect(server.logLines()).toContainEqual(
          expect.objectContaining({
            level: 'warn',
            context: 'Signals',
            msg: 'SIGUSR1 received: ignored (it would open the inspector; start node with --disable-sigusr1)',
          }),
        );
      } finally {
        await server.stop();
      }
    });
  });

  describe('ports', () => {
    let holder: Server;
    let held: number;

    beforeAll(async () => {
      holder = createServer().listen(0, '127.0.0.1');
      await once(holder, 'listening');
      held = (holder.address() as AddressInfo).port;
    });

    afterAll(() => holder.close());

    /** stdout's JSON lines as `level msg`. */
    const logged = (stdout: string) =>
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { level: string; msg: string })
        .map(({ level, msg }) => `${level} ${msg}`);

    it('refuses one port for both before starting anything, in one line', async () => {
      const port = String(await freePort());
      const run = await runToExit({ PORT: port, METRICS_PORT: port, LOG_LEVEL: 'info' });
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: `Invalid configuration: METRICS_PORT=${port} must differ from PORT (${port}): /metrics has a port of its own\n`,
      });
    });

    it('stops in one line when PORT is taken, with nothing after it', async () => {
      const metrics = await freePort();
      const run = await runToExit({
        PORT: String(held),
        METRICS_PORT: String(metrics),
        LOG_LEVEL: 'info',
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `Cannot listen on 127.0.0.1:${held} (PORT): address already in use\n`,
      );
      // Nest logs modules' start before the public listen, and that listen's error itself.
      expect(logged(run.stdout).slice(-3)).toEqual([
        `info Metrics on http://127.0.0.1:${metrics}/metrics`,
        'info Nest application successfully started',
        `error Error: listen EADDRINUSE: address already in use 127.0.0.1:${held}`,
      ]);
    });

    it('stops in one line when METRICS_PORT is taken, before the application starts', async () => {
      const run = await runToExit({
        PORT: String(await freePort()),
        METRICS_PORT: String(held),
        LOG_LEVEL: 'info',
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `Cannot listen on 127.0.0.1:${held} (METRICS_PORT): address already in use\n`,
      );
      const lines = logged(run.stdout);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.filter((line) => !line.startsWith('info '))).toEqual([]);
      expect(lines.filter((line) => /started|Listening|Metrics on/.test(line))).toEqual([]);
    });
  });
});
