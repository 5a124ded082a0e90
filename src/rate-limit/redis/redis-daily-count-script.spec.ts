import { utcDayNumber } from '../daily-limit.storage';
import { dayKey, keyTtl, readDailyCount } from './redis-daily-count-script';

describe('dayKey', () => {
  it("names the prefix, the day's UTC date and the client", () => {
    const eve = utcDayNumber(Date.parse('2026-12-31T23:59:59.999Z'));
    expect(dayKey('2001:db8::/64', eve)).toBe('depreciation:daily:2026-12-31:2001:db8::/64');
    const newYear = utcDayNumber(Date.parse('2027-01-01T00:00:00.000Z'));
    expect(dayKey('203.0.113.7', newYear)).toBe('depreciation:daily:2027-01-01:203.0.113.7');
    expect(dayKey('203.0.113.7', 20779)).toBe('depreciation:daily:2026-11-22:203.0.113.7');
  });
});

describe('keyTtl', () => {
  const now = Date.parse('2026-11-21T23:59:00.000Z');
  it("lives to its day's midnight plus a minute, and a minute for a day already past", () => {
    expect(keyTtl(20778, now)).toBe(120);
    expect(keyTtl(20777, now)).toBe(60);
  });

  it('lives to the end of a later day by this clock, for a clock behind the day counted in', () => {
    // 23:58:00 on the 21st, counting in the 22nd: 86,520 s to its end, plus the minute.
    expect(keyTtl(20779, Date.parse('2026-11-21T23:58:00.000Z'))).toBe(86_580);
    expect(keyTtl(20779, Date.parse('2026-11-21T23:59:59.500Z'))).toBe(86_461);
  });
});

describe('readDailyCount', () => {
  it('reads [total, mine, replaced], and nothing else', () => {
    expect(readDailyCount([7, 3, 1])).toEqual({ total: 7, mine: 3, replaced: true });
    expect(readDailyCount([7, 3, 0])).toEqual({ total: 7, mine: 3, replaced: false });
    expect(readDailyCount('OK')).toBeUndefined();
    expect(readDailyCount([7, -1, 0])).toBeUndefined();
  });
});
