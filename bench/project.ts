import { join, resolve } from 'node:path';
import type * as ClockModule from '../src/common/clock';
import type * as MessagesModule from '../src/edge/error-messages';
import type * as ContentTypeModule from '../src/edge/json-body';
import type * as ServiceModule from '../src/depreciation/depreciation.service';
import type * as DtoModule from '../src/depreciation/dto/calculate-depreciation.dto';
import type * as VehicleTypeModule from '../src/depreciation/vehicle-type';
import type * as ClientKeyModule from '../src/edge/client-key';
import type * as MemoryStorageModule from '../src/rate-limit/memory-daily-limit.storage';
import type * as RedisCountModule from '../src/rate-limit/redis-daily-count';
import type * as RedisStorageModule from '../src/rate-limit/redis-daily-limit.storage';

/** The repository: this file runs as dist-bench/bench/project.js. */
export const ROOT = resolve(__dirname, '..', '..');
export const MAIN_JS = join(ROOT, 'dist', 'main.js');
/** Logs, redis data and stderr of the started processes (git-ignored). */
export const OUT_DIR = join(ROOT, 'bench', '.out');
export const BENCH_JS = (name: string) => join(__dirname, `${name}.js`);

/**
 * The project's own code as `npm run build` compiled it (dist/), so the ceilings and the peer run
 * exactly what the service runs. Types come from src/; the code is loaded from dist/ at run time.
 */
function fromDist<T>(path: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(join(ROOT, 'dist', path)) as T;
}

export const dist = {
  clock: () => fromDist<typeof ClockModule>('common/clock.js'),
  messages: () => fromDist<typeof MessagesModule>('edge/error-messages.js'),
  contentType: () => fromDist<typeof ContentTypeModule>('edge/json-body.js'),
  service: () => fromDist<typeof ServiceModule>('depreciation/depreciation.service.js'),
  dto: () => fromDist<typeof DtoModule>('depreciation/dto/calculate-depreciation.dto.js'),
  vehicleTypes: () => fromDist<typeof VehicleTypeModule>('depreciation/vehicle-type.js'),
  clientKey: () => fromDist<typeof ClientKeyModule>('edge/client-key.js'),
  memoryStorage: () =>
    fromDist<typeof MemoryStorageModule>('rate-limit/memory-daily-limit.storage.js'),
  redisDailyCount: () => fromDist<typeof RedisCountModule>('rate-limit/redis-daily-count.js'),
  redisStorage: () =>
    fromDist<typeof RedisStorageModule>('rate-limit/redis-daily-limit.storage.js'),
};

/** The README's example: a 2020 sedan, seven entries. */
export const README_BODY = {
  purchaseYear: 2020,
  purchasePrice: 25000,
  vehicleType: 'sedan',
  currentMileage: 50000,
};

/** The largest answer: one entry per year since 1900 (127 in 2026). */
export const LARGEST_BODY = { ...README_BODY, purchaseYear: 1900 };

export const ROUTE = '/api/depreciate';

/** Reads a positive number from the environment, or the default. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}=${raw} is not a number >= 0`);
  return value;
}
