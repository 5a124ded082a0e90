import { redisKey } from './redis-daily-limit.storage';

// RedisDailyLimitStorage itself is tested against a real redis-server, a process, in the e2e
// project: test/redis-daily-limit.storage.e2e-spec.ts.
describe('redisKey', () => {
  it('names the prefix, the UTC date and the client', () => {
    expect(redisKey('2001:db8::/64', Date.parse('2026-12-31T23:59:59.999Z'))).toBe(
      'depreciation:daily:2026-12-31:2001:db8::/64',
    );
    expect(redisKey('203.0.113.7', Date.parse('2027-01-01T00:00:00.000Z'))).toBe(
      'depreciation:daily:2027-01-01:203.0.113.7',
    );
  });
});
