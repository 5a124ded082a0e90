import type { ApiResponseOptions, OperationObject } from '@nestjs/swagger';
import { dailyRecord } from './daily-limit.storage';
import { RATE_LIMIT_HEADERS, rateLimitHeaderValues } from './daily-limit.policy';

const DRAFT = 'draft-ietf-httpapi-ratelimit-headers-11, structured field';

const DESCRIPTIONS: Record<string, string> = {
  [RATE_LIMIT_HEADERS.limit]: 'Requests allowed per client per UTC day.',
  [RATE_LIMIT_HEADERS.remaining]: 'Requests left today for this client.',
  [RATE_LIMIT_HEADERS.reset]: 'Seconds until the counters reset at 00:00 UTC.',
  [RATE_LIMIT_HEADERS.policy]: `The policy: quota q per window w seconds (${DRAFT}).`,
  [RATE_LIMIT_HEADERS.state]: `Remaining quota r and seconds t until the reset (${DRAFT}).`,
  [RATE_LIMIT_HEADERS.retryAfter]:
    'Seconds until the reset at 00:00 UTC, when requests pass again.',
};

/** The example: a client's first request (or the one past `limit`) at 09:30 UTC. */
const EXAMPLE_RESET_SECONDS = 52_200;
const exampleValues = (limit: number, refused: boolean) =>
  rateLimitHeaderValues(limit, dailyRecord(refused ? limit + 1 : 1, limit, EXAMPLE_RESET_SECONDS));

/**
 * Decorators run before the configuration is read, so the examples (which name the limit) are
 * left to useLimitInHeaderExamples. `refused`: a 429, with Retry-After.
 */
export function rateLimitHeaderDocs(refused = false): NonNullable<ApiResponseOptions['headers']> {
  return Object.fromEntries(
    exampleValues(1, refused).map(([name, value]) => [
      name,
      {
        description: DESCRIPTIONS[name],
        schema: typeof value === 'number' ? { type: 'integer', minimum: 0 } : { type: 'string' },
      },
    ]),
  );
}

type DocumentedResponse = { headers?: Record<string, { schema?: { example?: unknown } }> };

export function useLimitInHeaderExamples(operations: OperationObject[], limit: number): void {
  for (const { responses } of operations) {
    for (const [status, response] of Object.entries(responses ?? {})) {
      const examples = new Map(exampleValues(limit, status === '429'));
      for (const [name, header] of Object.entries((response as DocumentedResponse).headers ?? {}))
        if (examples.has(name) && header.schema) header.schema.example = examples.get(name);
    }
  }
}
