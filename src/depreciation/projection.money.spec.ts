import { percentOf, roundHalfAwayFromZero, toCents, toUsd } from './projection';

describe('money', () => {
  it.each([
    [1.005, 101],
    [2.675, 268],
    [0.125, 13],
    [0.124, 12],
    [10_000_000, 1_000_000_000],
    [0.004, 0],
    [0.005, 1],
  ])('toCents(%p) is %p (half away from zero, as the decimal reads)', (usd, cents) => {
    expect(toCents(usd)).toBe(cents);
  });

  it('rounds negative halves away from zero too', () => {
    expect(roundHalfAwayFromZero(-2.5)).toBe(-3);
    expect(roundHalfAwayFromZero(2.5)).toBe(3);
    expect(Object.is(roundHalfAwayFromZero(-0.2), 0)).toBe(true);
  });

  it('turns cents back into USD that JSON prints with at most two decimals', () => {
    expect(JSON.stringify(toUsd(1_201_444))).toBe('12014.44');
    expect(JSON.stringify(toUsd(10))).toBe('0.1');
  });

  it.each([
    [4_500, 25_000, 18],
    [1, 3, 33.33],
    [2, 3, 66.67],
    [1, 8, 12.5],
    [1, 800, 0.13],
    [5, 0, 0],
  ])('percentOf(%p, %p) is %p', (part, whole, percent) => {
    expect(percentOf(part, whole)).toBe(percent);
  });
});
