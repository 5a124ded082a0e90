import { performance } from 'node:perf_hooks';
import {
  DailyLimitRecord,
  DailyLimitState,
  DailyLimitStorage,
  dailyRecord,
} from '../../src/rate-limit/daily-limit.storage';
import { HttpAnswer, send } from './http';

export const VALID = { purchaseYear: 2020, purchasePrice: 25_000, vehicleType: 'sedan' };

export interface TimedAnswer extends HttpAnswer {
  /** Wall time from sending to the whole answer, in milliseconds. */
  ms: number;
}

/**
 * POST /api/depreciate from `from` (a 127.0.0.N address: one client each), a valid body unless
 * another is given, with extra headers (forged X-Forwarded-For and the like).
 */
export async function post(
  port: number,
  from: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<TimedAnswer> {
  const started = performance.now();
  const answer = await send({
    port,
    method: 'POST',
    path: '/api/depreciate',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(options.body ?? VALID),
    localAddress: from,
  });
  return { ...answer, ms: performance.now() - started };
}

/** X-RateLimit-Remaining as a number. */
export const remaining = (answer: HttpAnswer): number =>
  Number(answer.headers['x-ratelimit-remaining']);

/** GET /health's body. */
export const health = async (port: number): Promise<unknown> =>
  (await send({ port, path: '/health' })).json;

/** A storage that finds every client over its limit, `resetSeconds` before midnight; keeps the keys. */
export class OverLimitStorage extends DailyLimitStorage {
  readonly keys: string[] = [];

  constructor(private readonly resetSeconds = 60) {
    super();
  }

  hit(key: string, limit: number): Promise<DailyLimitRecord> {
    this.keys.push(key);
    return Promise.resolve(dailyRecord(limit + 1, limit, this.resetSeconds));
  }

  state(): DailyLimitState {
    return { store: 'memory', counting: 'memory', shared: false };
  }
}
