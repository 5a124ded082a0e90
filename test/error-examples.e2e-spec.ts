import { Controller, Get } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { limited } from '../src/testing/bodies';
import { nextClients } from '../src/testing/clients';
import { depreciate, send } from '../src/testing/http';
import { exchange, parseResponses, rawRequest, RawConnection } from '../src/testing/raw-http';
import { ServerProcess, startServer } from '../src/testing/server-process';
import { listenTestApp } from '../src/testing/test-app';
import { sleep } from '../src/testing/processes';

type Body = { statusCode: number; message: string };
type Answers = Record<number, Body>;

/** Every error example of the document: status → example, from every operation and the globals. */
function documentedExamples(document: {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
}): Answers {
  const examples: Answers = {};
  for (const operations of Object.values(document.paths))
    for (const { responses } of Object.values(operations))
      for (const [status, response] of Object.entries(responses)) {
        const example = (response as { content?: Record<string, { example?: Body }> }).content?.[
          'application/json'
        ]?.example;
        if (Number(status) >= 400 && example !== undefined) examples[Number(status)] = example;
      }
  return examples;
}

/** No client keeps a connection past its answer (MAX_CONNECTIONS_PER_CLIENT is 2). */
const CLOSE = { connection: 'close' };

const bodyOf = (bytes: Buffer): Body =>
  JSON.parse(parseResponses(bytes)[0].body.toString()) as Body;

/** Answers the built server gives for each status, each from a client of its own. */
async function provokeAll(port: number, client: (n: number) => string): Promise<Answers> {
  const post = (n: number, body: unknown, type?: string) =>
    depreciate(port, { from: client(n), body, type, headers: CLOSE }).then(
      (answer) => answer.json as Body,
    );
  const raw = async (n: number, bytes: string) =>
    bodyOf((await exchange(Buffer.from(bytes), { port, localAddress: client(n) })).received);
  const answers: Answers = {};
  answers[400] = await post(1, { purchaseYear: 'soon' });
  answers[413] = await post(2, { pad: 'x'.repeat(9 * 1024) });
  answers[415] = await post(3, limited(), 'text/plain');
  await post(4, limited());
  answers[429] = await post(4, limited());
  answers[431] = await raw(5, rawRequest('GET', '/health', { 'X-Big': 'x'.repeat(17 * 1024) }));
  answers[505] = await raw(6, 'GET /health HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n');
  answers[408] = await raw(7, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half');
  // Two connections held: the client's third is over MAX_CONNECTIONS_PER_CLIENT=2.
  const held = await Promise.all(
    [1, 2].map(() => RawConnection.open({ port, localAddress: client(8) })),
  );
  await sleep(50);
  answers[503] = await raw(8, rawRequest('GET', '/health', { Connection: 'close' }));
  for (const connection of held) connection.close();
  return answers;
}

@Controller('failing')
class FailingController {
  @Get()
  @SkipThrottle()
  fail(): never {
    throw new Error('a bug');
  }
}

// The document's error examples are made by errorBody, the function the writers use: each one must
// be what the service answers for that status.
describe('the OpenAPI error examples against real answers', () => {
  let server: ServerProcess;
  let documented: Answers;

  beforeAll(async () => {
    server = await startServer({
      RATE_LIMIT_PER_DAY: '1',
      MAX_CONNECTIONS_PER_CLIENT: '2',
      CONNECTION_REFUSAL_TIMEOUT_MS: '100',
      HEADERS_TIMEOUT_MS: '500',
      REQUEST_TIMEOUT_MS: '500',
    });
    documented = documentedExamples(
      (await send({ port: server.port, path: '/docs-json' })).json as never,
    );
  });

  afterAll(() => server.stop());

  it('documents each status the service answers, with the body it sends', async () => {
    const clients = nextClients(8);
    const answers = await provokeAll(server.port, (n) => clients[n - 1]);
    const { 500: _unexpected, ...withoutFault } = documented;
    expect(answers).toEqual(withoutFault);
    expect(Object.keys(answers).sort()).toEqual(
      ['400', '408', '413', '415', '429', '431', '503', '505'].sort(),
    );
  });

  it('documents the 500 as the filter answers an unexpected failure', async () => {
    const { app, port } = await listenTestApp({ extra: { controllers: [FailingController] } });
    try {
      const answer = await send({ port, path: '/failing' });
      expect(answer.status).toBe(500);
      expect(answer.json).toEqual(documented[500]);
    } finally {
      await app.close();
    }
  });
});
