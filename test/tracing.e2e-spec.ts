import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { nextClient } from '../src/testing/clients';
import { depreciate } from '../src/testing/http';
import { OtlpReceiver, type ReceivedSpan } from '../src/testing/otlp-receiver';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { exchange, parseResponses } from '../src/testing/raw-http';
import { RedisServer } from '../src/testing/redis-server';
import {
  NODE_FLAGS,
  runToExit,
  ServerProcess,
  startServer,
  untilShared,
} from '../src/testing/server-process';
import { describeWithTools } from '../src/testing/system-tools';

const LIMIT = 2;
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
const PARENT = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
const traceparent = (sampled: boolean) =>
  `00-${PARENT.traceId}-${PARENT.spanId}-${sampled ? '01' : '00'}`;

describeWithTools(['redis-server'], 'Traces sent over OTLP/HTTP to a receiver', () => {
  let redis: RedisServer;
  let receiver: OtlpReceiver;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    [redis, receiver] = await Promise.all([RedisServer.start(), OtlpReceiver.start()]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all([redis?.stop(), receiver?.close()]);
  }, PROCESS_TEST_TIMEOUT_MS);

  const start = async (protocol: string) => {
    const server = await startServer({
      LOG_LEVEL: 'info',
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: redis.url,
      RATE_LIMIT_PER_DAY: String(LIMIT),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: 'depreciation-under-test',
      OTEL_RESOURCE_ATTRIBUTES: `deployment.environment.name=e2e,test.protocol=${protocol}`,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    servers.push(server);
    return untilShared(server);
  };

  /** The server span of the request that answered with `requestId`, via its log line's ids. */
  const logLine = async (server: ServerProcess, requestId: string) => {
    const find = () => server.logLines().find((entry) => entry.reqId === requestId);
    const found = () => Promise.resolve(find() !== undefined);
    await server.until(`the log line of ${requestId}`, found, 5_000);
    return find();
  };

  const spanOfLogLine = async (server: ServerProcess, requestId: string) => {
    const line = await logLine(server, requestId);
    expect(line).toMatchObject({ trace_id: expect.any(String), span_id: expect.any(String) });
    const ids = line as { trace_id: string; span_id: string };
    return receiver.span(`the span of request ${requestId}`, (span) => span.spanId === ids.span_id);
  };

  describe.each(['http/protobuf', 'http/json'])(
    'with OTEL_EXPORTER_OTLP_PROTOCOL=%s',
    (protocol) => {
      let server: ServerProcess;
      const client = nextClient();
      const from = (span: ReceivedSpan) => span.resource['test.protocol'] === protocol;

      beforeAll(async () => {
        server = await start(protocol);
      }, PROCESS_TEST_TIMEOUT_MS);

      it("continues the caller's traceparent: a server span, and a client span per Redis round trip", async () => {
        const answer = await depreciate(server.port, {
          from: client,
          headers: { traceparent: traceparent(true), 'x-request-id': `ok-${protocol}` },
        });
        expect(answer.status).toBe(200);
        const span = await spanOfLogLine(server, `ok-${protocol}`);
        expect(span).toMatchObject({
          traceId: PARENT.traceId,
          parentSpanId: PARENT.spanId,
          name: 'POST /api/depreciate',
          kind: SERVER,
          statusCode: 0,
          contentType: protocol === 'http/json' ? 'application/json' : 'application/x-protobuf',
          attributes: {
            'http.request.method': 'POST',
            'http.route': '/api/depreciate',
            'http.response.status_code': 200,
            'url.path': '/api/depreciate',
            'url.scheme': 'http',
          },
          resource: {
            'service.name': 'depreciation-under-test',
            'deployment.environment.name': 'e2e',
            'telemetry.sdk.language': 'nodejs',
          },
        });
        const redisSpan = await receiver.span(
          'the Redis span',
          (child) => child.parentSpanId === span.spanId,
        );
        expect(redisSpan).toMatchObject({
          traceId: PARENT.traceId,
          name: 'EVALSHA',
          kind: CLIENT,
          attributes: { 'db.system.name': 'redis', 'db.operation.name': 'EVALSHA' },
        });
        // Never the client's key (its address) in a span.
        expect(JSON.stringify(redisSpan)).not.toContain(client);
        expect(receiver.paths).toContain('/v1/traces');
      });

      it('gives a 400 and a 429 their spans, with the route and the status', async () => {
        const invalid = await depreciate(server.port, {
          from: client,
          body: { type: 'boat' },
          headers: { 'x-request-id': `invalid-${protocol}` },
        });
        expect(invalid.status).toBe(400);
        expect(await spanOfLogLine(server, `invalid-${protocol}`)).toMatchObject({
          name: 'POST /api/depreciate',
          statusCode: 0,
          attributes: { 'http.route': '/api/depreciate', 'http.response.status_code': 400 },
        });
        // LIMIT is 2 and an invalid request counts too (docs/contract.md): the third is refused.
        const refused = await depreciate(server.port, {
          from: client,
          headers: { 'x-request-id': `refused-${protocol}` },
        });
        expect(refused.status).toBe(429);
        expect(await spanOfLogLine(server, `refused-${protocol}`)).toMatchObject({
          attributes: { 'http.response.status_code': 429, 'url.path': '/api/depreciate' },
        });
      });

      it("gives the edge's refusal of a parsed request its span, with no route", async () => {
        const request = Buffer.from(
          'GET /health HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nX-Request-Id: ' +
            `hosts-${protocol}\r\nConnection: close\r\n\r\n`,
        );
        const { received } = await exchange(request, { port: server.port });
        expect(parseResponses(received)[0].status).toBe(400);
        const span = await spanOfLogLine(server, `hosts-${protocol}`);
        expect(span).toMatchObject({
          name: 'GET',
          attributes: { 'http.response.status_code': 400, 'url.path': '/health' },
        });
        expect(span.attributes['http.route']).toBeUndefined();
        expect(from(span)).toBe(true);
      });

      it('sends nothing for a request whose caller did not sample it (parentbased_always_on)', async () => {
        const before = receiver.spans.length;
        const answer = await depreciate(server.port, {
          from: nextClient(),
          headers: { traceparent: traceparent(false), 'x-request-id': `unsampled-${protocol}` },
        });
        expect(answer.status).toBe(200);
        // A sampled request after it: once its span arrives, the unsampled one would have too.
        await depreciate(server.port, {
          from: nextClient(),
          headers: { 'x-request-id': `after-${protocol}` },
        });
        await spanOfLogLine(server, `after-${protocol}`);
        const line = await logLine(server, `unsampled-${protocol}`);
        expect(line).toBeDefined();
        expect(line).not.toHaveProperty('trace_id');
        const sent = receiver.spans.slice(before).filter((span) => span.traceId === PARENT.traceId);
        expect(sent).toEqual([]);
      });

      it('leaves a 4xx span unset: the client erred, not the server', () => {
        const answered = receiver.spans.filter((span) => from(span) && span.kind === SERVER);
        expect(answered.map((span) => span.attributes['http.response.status_code'])).toContain(429);
        expect(answered.filter((span) => span.statusCode === ERROR)).toEqual([]);
      });
    },
  );
});

describe('Traces off unless configured', () => {
  const DIST = join(__dirname, '..', 'dist');
  /**
   * The OpenTelemetry SDK's modules Node loaded while the application started with `env`. The API
   * (@opentelemetry/api, no-ops until an SDK registers) is prom-client's own dependency: it is
   * always loaded.
   */
  const loadedWith = (env: Record<string, string>): string[] => {
    const script = `
      const { createApp } = require(${JSON.stringify(join(DIST, 'app.factory'))});
      createApp().then(async (app) => {
        await app.init();
        const loaded = Object.keys(require.cache).filter(
          (file) => file.includes('/@opentelemetry/') && !file.includes('/@opentelemetry/api/'));
        process.stdout.write(JSON.stringify(loaded));
        await app.close();
      });`;
    const run = spawnSync(process.execPath, [...NODE_FLAGS, '-e', script], {
      env: { ...process.env, LOG_LEVEL: 'silent', PORT: '0', METRICS_PORT: '0', ...env },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout) as string[];
  };

  it('loads nothing of the SDK without an endpoint, and the SDK with one', () => {
    expect(loadedWith({})).toEqual([]);
    const withEndpoint = loadedWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(withEndpoint.some((file) => file.includes('sdk-trace'))).toBe(true);
    expect(
      loadedWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' }),
    ).toEqual([]);
  });

  it('refuses to start, in one line, on a protocol it does not carry', async () => {
    const { code, stderr } = await runToExit({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'Invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL="grpc" must be one of http/protobuf, http/json',
    );
  });
});
