import { checkAnswer } from './preflight';
import { Running } from './processes';
import { commandsProcessed } from './redis';
import { Row, urlOf } from './targets';

/** Why the Redis-backed service did not count every request in Redis, if it did not. */
export async function redisShortfall(redis: Running, requests: () => Promise<number>) {
  const before = await commandsProcessed(redis.port);
  const answered = await requests();
  const commands = (await commandsProcessed(redis.port)) - before - 1; // less our own INFO
  if (commands >= answered) return undefined;
  const share = ((Math.max(commands, 0) / answered) * 100).toFixed(0);
  return `only ${share} % of its requests reached Redis (RATE_LIMIT_STORE=redis not supported, or counting in memory)`;
}

/** One right answer per row before any load (the 429 target's one allowed request spent first). */
export async function checkRows(rows: Row[], redis: Running | undefined): Promise<void> {
  for (const row of rows) {
    if (!row.target.running) row.problem ??= 'the process did not start';
    if (row.problem) continue;
    const url = urlOf(row.target);
    const check = () => checkAnswer(url, row.body, row.status, row.target.rateLimit);
    // The 429 target (limit 1) answers its first request, then refuses every other.
    if (row.status === 429) row.problem = await checkAnswer(url, row.body, 200, 1);
    row.problem ??= await check();
    if (!row.problem && redis && row.target.name === 'service-redis') {
      const tenMore = async () => {
        for (let i = 0; i < 10; i++) row.problem ??= await check();
        return 10;
      };
      row.problem ??= await redisShortfall(redis, tenMore);
    }
  }
}
