import { benchJs, SERVER_ENV, SERVICE_ARGS } from './common';
import type { Row, Target } from './report';

/** What `npm run bench` loads: the servers (targets) and the table's rows, each a target and a body. */
const NO_LIMIT = 1e9; // never reached: the service counts every request and refuses none

/** The targets, and the rows in the order of the table (and of each round). */
export function plan(redisPort?: number) {
  const target = (name: string, args: string[], env = {}, limit = NO_LIMIT): Target => {
    const command = [process.execPath, ...args];
    return { name, command, env: { ...SERVER_ENV, ...env }, limit };
  };
  const service = (name: string, limit: number, env = {}) =>
    target(name, SERVICE_ARGS, { RATE_LIMIT_PER_DAY: `${limit}`, ...env }, limit);
  const t = {
    service: service('service', NO_LIMIT),
    bareNest: target('bare-nest', [benchJs('bare-nest')]),
    peer: target('peer', [benchJs('peer')]),
    express: target('express-ceiling', [benchJs('ceilings'), 'express']),
    http: target('http-ceiling', [benchJs('ceilings'), 'http']),
  };
  const env = { RATE_LIMIT_STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${redisPort}` };
  const viaRedis = redisPort === undefined ? undefined : service('service-redis', NO_LIMIT, env);
  const rows: Row[] = [];
  const row = (label: string, t?: Target, status = 200, workload: Row['workload'] = 'readme') =>
    t && rows.push({ label, target: t, status, workload, rounds: [], beside: [], rss: NaN });
  row('service (in-memory store)', t.service);
  row('service (Redis store)', viaRedis);
  row('bare Nest route (the goals’ base)', t.bareNest);
  row('peer: Nest + ValidationPipe + stock throttler', t.peer);
  if (process.env.BENCH_PEER_BARE !== '0')
    row(
      'peer without its throttler (Nest + ValidationPipe)',
      target('peer-bare', [benchJs('peer')], { PEER_THROTTLER: 'off' }),
    );
  row('Express 5 ceiling', t.express);
  row('node:http ceiling', t.http);
  row('service, 429 path (over its limit)', service('service-429', 1), 429);
  row('service, largest answer', t.service, 200, 'largest');
  row('service, largest answer with projectionYears: 10', t.service, 200, 'projected');
  row('Express 5 ceiling, largest answer', t.express, 200, 'largest');
  row('node:http ceiling, largest answer', t.http, 200, 'largest');
  return { ...t, rows };
}
