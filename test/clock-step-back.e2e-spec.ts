import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { nextClient } from '../src/testing/clients';
import { remaining } from '../src/testing/daily-limit';
import { LIBFAKETIME } from '../src/testing/system-tools';
import { depreciate } from '../src/testing/http';
import { ServerProcess, startServer } from '../src/testing/server-process';
import { describeWithTools } from '../src/testing/system-tools';

const LIMIT = 3;

/**
 * The built server (in-memory store) on a clock this test sets: libfaketime reads the time from a
 * file at every call (FAKETIME_NO_CACHE), frozen at what the file says. The monotonic clock stays
 * real, so the server's timers run.
 */
describeWithTools(['faketime'], 'a clock that steps back (built server, faketime)', () => {
  let server: ServerProcess;
  let dir: string;
  const clockFile = () => join(dir, 'faketime');
  const setClock = (utc: string) => writeFileSync(clockFile(), `${utc}\n`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'clock-step-back-'));
    setClock('2026-11-25 23:59:56');
    server = await startServer({
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: clockFile(),
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      TZ: 'UTC',
      RATE_LIMIT_PER_DAY: String(LIMIT),
    });
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, PROCESS_TEST_TIMEOUT_MS);

  /** `count` requests from `from`: each answer's status, remaining budget and reset. */
  const send = async (from: string, count: number) => {
    const answers = [];
    for (let i = 0; i < count; i++) {
      const answer = await depreciate(server.port, { from });
      const reset = Number(answer.headers['x-ratelimit-reset']);
      answers.push([answer.status, remaining(answer), reset]);
    }
    return answers;
  };

  it(
    'never refreshes a budget or leaves a request uncounted when the clock steps back across midnight',
    async () => {
      const newcomer = nextClient();
      const client = nextClient();
      expect(await send(client, 4)).toEqual([
        [200, 2, 4],
        [200, 1, 4],
        [200, 0, 4],
        [429, 0, 4],
      ]);
      setClock('2026-11-26 00:00:01');
      expect(await send(client, 1)).toEqual([[200, 2, 86_399]]);
      // Back to day 25: the server goes on counting in day 26, which ends 86,403 s from 23:59:57.
      setClock('2026-11-25 23:59:57');
      expect(await send(client, 3)).toEqual([
        [200, 1, 86_403],
        [200, 0, 86_403],
        [429, 0, 86_403],
      ]);
      expect(await send(newcomer, 4)).toEqual([
        [200, 2, 86_403],
        [200, 1, 86_403],
        [200, 0, 86_403],
        [429, 0, 86_403],
      ]);
      // The clock catches up: still day 26, still spent.
      setClock('2026-11-26 00:00:05');
      expect(await send(client, 1)).toEqual([[429, 0, 86_395]]);
      expect(await send(newcomer, 1)).toEqual([[429, 0, 86_395]]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
