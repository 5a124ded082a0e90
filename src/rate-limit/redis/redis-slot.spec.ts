import { keySlot } from './redis-slot';

describe('keySlot', () => {
  // Expected slots from Redis 7's CLUSTER KEYSLOT.
  it.each([
    ['foo', 12182],
    ['123456789', 12739],
    ['{user1000}.following', 3443],
    ['foo{}{bar}', 8363],
    ['depreciation:daily:2026-11-21:203.0.113.7', 8105],
    ['depreciation:daily:2026-11-21:2001:db8::/64', 13724],
    ['ü', 9552],
  ])('puts %s in slot %i', (key, slot) => {
    expect(keySlot(key)).toBe(slot);
  });
});
