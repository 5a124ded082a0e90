import {
  DailyLimitRecord,
  DailyLimitState,
  DailyLimitStorage,
  dailyRecord,
} from '../../src/rate-limit/daily-limit.storage';
import { HttpAnswer, send } from './http';

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
