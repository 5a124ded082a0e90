import { DayRollover, secondsUntilReset, utcDayNumber } from './daily-limit.storage';

const at = (iso: string) => Date.parse(iso);

describe('the daily window (UTC calendar day)', () => {
  it('gives every instant of one UTC day the same number, and the next day the next', () => {
    expect(utcDayNumber(at('2026-11-21T00:00:00.000Z'))).toBe(
      utcDayNumber(at('2026-11-21T23:59:59.999Z')),
    );
    expect(utcDayNumber(at('2026-11-22T00:00:00.000Z'))).toBe(
      utcDayNumber(at('2026-11-21T12:00:00Z')) + 1,
    );
  });

  it.each([
    ['2026-11-21T00:00:00.000Z', 86_400],
    ['2026-11-21T00:00:00.001Z', 86_400],
    ['2026-11-21T12:00:00.000Z', 43_200],
    ['2026-11-21T23:59:59.000Z', 1],
    ['2026-11-21T23:59:59.999Z', 1],
  ])('at %s the reset is %p seconds away (rounded up)', (iso, seconds) => {
    expect(secondsUntilReset(at(iso))).toBe(seconds);
  });

  it('counts the seconds to the end of a later day, for a clock behind the day counted in', () => {
    const nextDay = utcDayNumber(at('2026-11-22T00:00:01.000Z'));
    expect(secondsUntilReset(at('2026-11-21T23:59:57.000Z'), nextDay)).toBe(86_403);
  });
});

describe('DayRollover', () => {
  it('starts each later UTC day once, and stays on its day when the clock steps back', () => {
    const started: number[] = [];
    const days = new DayRollover((day) => started.push(day));
    const reach = (iso: string) => days.enter(utcDayNumber(Date.parse(iso)));
    expect(reach('2026-11-21T12:00:00.000Z')).toBe(20778);
    expect(reach('2026-11-21T23:59:59.999Z')).toBe(20778);
    expect(reach('2026-11-22T00:00:00.000Z')).toBe(20779);
    expect(reach('2026-11-21T23:00:00.000Z')).toBe(20779);
    expect(started).toEqual([20778, 20779]);
  });

  it("tells an instant's day without moving to it: its own, or the later one reached", () => {
    const started: number[] = [];
    const days = new DayRollover((day) => started.push(day));
    expect(days.dayOf(Date.parse('2026-11-21T23:58:00.000Z'))).toBe(20778);
    days.enter(20779);
    expect(days.dayOf(Date.parse('2026-11-21T23:58:00.000Z'))).toBe(20779);
    expect(days.dayOf(Date.parse('2026-11-23T00:00:00.000Z'))).toBe(20780);
    expect(days.enter(20779)).toBe(20779);
    expect(started).toEqual([20779]);
  });

  it('answers every day comparison of the stores: counted, past, ahead, and entering a day', () => {
    const started: number[] = [];
    const days = new DayRollover((day) => started.push(day));
    days.enter(20779);
    expect([days.isCounted(20779), days.isCounted(20778), days.isCounted(20780)]).toEqual([
      true,
      false,
      false,
    ]);
    expect([days.isPast(20778), days.isPast(20779), days.isPast(20780)]).toEqual([
      true,
      false,
      false,
    ]);
    // Behind the day counted in (stepped back), or on it: not ahead; the next day is, until reached.
    expect(days.isAhead(Date.parse('2026-11-21T23:58:00.000Z'))).toBe(false);
    expect(days.isAhead(Date.parse('2026-11-22T23:59:59.999Z'))).toBe(false);
    expect(days.isAhead(Date.parse('2026-11-23T00:00:00.000Z'))).toBe(true);
    // A late reply for the day before neither enters it nor moves the day; a later day starts.
    expect([days.enter(20778), days.enter(20779), days.enter(20780)]).toEqual([
      20779, 20779, 20780,
    ]);
    expect(started).toEqual([20779, 20780]);
  });
});
