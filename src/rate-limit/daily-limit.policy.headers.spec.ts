import { ServerResponse } from 'node:http';
import { dailyRecord } from './daily-limit.storage';
import { setRateLimitHeaders } from './daily-limit.policy';

const headersFor = (hits: number, limit: number, reset: number) => {
  const response = new ServerResponse({ method: 'POST' } as never);
  setRateLimitHeaders(response, limit, dailyRecord(hits, limit, reset));
  return response.getHeaders();
};

describe('setRateLimitHeaders', () => {
  it('sets the X-RateLimit trio and the IETF draft pair on a counted answer', () => {
    expect(headersFor(1, 100, 3600)).toEqual({
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '99',
      'x-ratelimit-reset': '3600',
      'ratelimit-policy': '"daily";q=100;w=86400',
      ratelimit: '"daily";r=99;t=3600',
    });
  });

  it('adds Retry-After on a refusal, and never a negative remainder', () => {
    expect(headersFor(7, 5, 42)).toEqual({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '42',
      'ratelimit-policy': '"daily";q=5;w=86400',
      ratelimit: '"daily";r=0;t=42',
      'retry-after': '42',
    });
  });
});
