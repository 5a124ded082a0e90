import { decimal } from './daily-limit.policy';

describe('decimal', () => {
  it.each([
    0,
    7,
    999,
    1000,
    1001,
    86_400,
    999_999_999,
    1_000_000_000,
    1_764_000_000_123,
    2 ** 53 - 1,
  ])('writes %d as String() does', (n) => expect(decimal(n)).toBe(String(n)));

  it.each([-1, 0.5, 1e21, Number.MAX_VALUE, NaN, Infinity])('leaves %d to String()', (n) =>
    expect(decimal(n)).toBe(String(n)),
  );

  it('agrees with String() across a range of integers', () => {
    for (let n = 0; n < 2_000_000; n += 997) expect(decimal(n)).toBe(String(n));
  });
});
