import { CountMinSketch } from './count-min-sketch';

describe('CountMinSketch', () => {
  it('never counts a key below its true count, however crowded', () => {
    // 64 bytes, 4 rows: 16 cells each, for 200 keys.
    const sketch = new CountMinSketch(64, 4, 10);
    const truth = new Map<string, number>();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 200; i++) {
        const key = `10.0.${i % 7}.${i}`;
        const count = sketch.hit(key, 10);
        truth.set(key, (truth.get(key) ?? 0) + 1);
        expect(count).toBeGreaterThanOrEqual(truth.get(key) ?? 0);
      }
    }
    for (const [key, count] of truth) expect(sketch.count(key, 10)).toBeGreaterThanOrEqual(count);
  });

  it('counts exactly while keys do not collide, and raises to a count known from elsewhere', () => {
    const sketch = new CountMinSketch(2 ** 20, 8, 100);
    expect([sketch.hit('a', 100), sketch.hit('a', 100), sketch.hit('b', 100)]).toEqual([1, 2, 1]);
    expect(sketch.hit('a', 100, 50)).toBe(50);
    expect(sketch.count('a', 100)).toBe(50);
  });

  it('holds counts past 255 in wider cells, and says how many cells reached the limit', () => {
    // 16 bytes of 2-byte cells, 1 row: 8 cells.
    const sketch = new CountMinSketch(16, 1, 300);
    for (let i = 0; i < 301; i++) sketch.hit('a', 300);
    expect(sketch.hit('a', 300)).toBe(302);
    expect(sketch.saturation).toBe(1 / 8);
  });
});
