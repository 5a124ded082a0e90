import { Writable } from 'node:stream';
import { StdoutLog } from './stdout-log';

/** A stdout whose reader has stalled until `release()`: every write waits for it. */
function stalledOutput() {
  const written: string[] = [];
  let pending: Array<() => void> = [];
  const out = new Writable({
    highWaterMark: 16,
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      written.push(chunk);
      pending.push(done);
    },
  });
  const release = () => {
    const waiting = pending;
    pending = [];
    waiting.forEach((done) => done());
  };
  return { out, written, release };
}

describe('StdoutLog', () => {
  it('drops and counts every line once its reader closed the pipe, and never throws', async () => {
    const written: string[] = [];
    const out = new Writable({
      decodeStrings: false,
      write(chunk: string, _encoding, done) {
        written.push(chunk);
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    let drops = 0;
    const log = new StdoutLog(1_000, () => (drops += 1), out);
    log.write('first');
    await new Promise((resolve) => setImmediate(resolve));
    log.write('second');
    log.write('third');
    expect(written).toEqual(['first']);
    // The first was lost in the pipe, the others never written: all three counted.
    expect(drops).toBe(3);
  });

  it("counts each request line of a turn's one write that met a closed pipe", async () => {
    const out = new Writable({
      decodeStrings: false,
      write(_chunk: string, _encoding, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    let drops = 0;
    const log = new StdoutLog(1_000, () => (drops += 1), out);
    for (const line of ['a\n', 'b\n', 'c\n']) log.writeSoon(line);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drops).toBe(3);
    log.writeSoon('d\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(drops).toBe(4);
  });

  it('writes while the buffer holds less than its bound, then drops and counts', () => {
    const { out, written } = stalledOutput();
    let drops = 0;
    const log = new StdoutLog(30, () => (drops += 1), out);
    // 10 characters each: the first is being written, the next 2 wait (30 held), 3 are dropped.
    for (let i = 0; i < 6; i += 1) log.write('0123456789');
    expect(out.writableLength).toBe(30);
    expect(written).toHaveLength(1);
    expect(drops).toBe(3);
  });

  it('says how many it dropped once, when the reader has caught up', async () => {
    const { out, written, release } = stalledOutput();
    const reports: number[] = [];
    const log = new StdoutLog(20, undefined, out);
    log.onResumed = (dropped) => void reports.push(dropped);
    for (let i = 0; i < 5; i += 1) log.write('0123456789');
    expect(reports).toEqual([]);
    while (out.writableLength > 0) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(reports).toEqual([3]);
    log.write('after.....');
    expect(written.at(-1)).toBe('after.....');
    expect(reports).toEqual([3]);
  });

  it('waits at exit for the buffer to be written, at most its bound', async () => {
    const { out, release } = stalledOutput();
    const log = new StdoutLog(1_000, undefined, out);
    log.write('0123456789');
    log.write('0123456789');
    const started = Date.now();
    await log.written(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(out.writableLength).toBe(20);
    const flushed = log.written(10_000);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await flushed;
    expect(out.writableLength).toBe(0);
  });

  it("takes its output's errors with one listener, however many logs write there", () => {
    const { out } = stalledOutput();
    for (let i = 0; i < 3; i += 1) new StdoutLog(1_000, undefined, out);
    expect(out.listenerCount('error')).toBe(1);
  });

  describe('request lines held for the end of the turn (writeSoon)', () => {
    const turn = () => new Promise((resolve) => setImmediate(resolve));

    it('writes the lines of one turn together, in one write, at its end', async () => {
      const { out, written } = stalledOutput();
      const log = new StdoutLog(1_000, undefined, out);
      log.writeSoon('a\n');
      log.writeSoon('b\n');
      expect(written).toEqual([]);
      await turn();
      expect(written).toEqual(['a\nb\n']);
    });

    it('keeps the order: any other line writes what is held first', () => {
      const { out, written } = stalledOutput();
      const log = new StdoutLog(1_000, undefined, out);
      log.writeSoon('request\n');
      log.write('warning\n');
      expect(written).toEqual(['request\n']);
      expect(out.writableLength).toBe('request\nwarning\n'.length);
    });

    it('counts what it holds against the bound, and drops and counts past it', async () => {
      const { out, written } = stalledOutput();
      let drops = 0;
      const log = new StdoutLog(25, () => (drops += 1), out);
      for (let i = 0; i < 4; i += 1) log.writeSoon('012345678\n');
      expect(drops).toBe(1);
      await turn();
      expect(written).toEqual(['012345678\n'.repeat(3)]);
    });

    it('writes what it holds at an exit that does not wait (a crash), and only while it holds', async () => {
      const { out, written } = stalledOutput();
      const log = new StdoutLog(1_000, undefined, out);
      const before = process.listenerCount('exit');
      log.writeSoon('held\n');
      expect(process.listenerCount('exit')).toBe(before + 1);
      process.listeners('exit').at(-1)?.call(process, 0);
      expect(written).toEqual(['held\n']);
      expect(process.listenerCount('exit')).toBe(before);
      await turn();
      expect(written).toEqual(['held\n']);
    });

    it('writes what it holds when an exit waits for stdout (written)', async () => {
      const { out, written, release } = stalledOutput();
      const log = new StdoutLog(1_000, undefined, out);
      log.writeSoon('last\n');
      const flushed = log.written(10_000);
      expect(written).toEqual(['last\n']);
      release();
      await flushed;
      expect(out.writableLength).toBe(0);
    });

    it('drops and counts each line held when the reader closed the pipe meanwhile', async () => {
      const { out, written } = stalledOutput();
      let drops = 0;
      const log = new StdoutLog(1_000, () => (drops += 1), out);
      log.writeSoon('a\n');
      log.writeSoon('b\n');
      out.destroy();
      await turn();
      expect(written).toEqual([]);
      expect(drops).toBe(2);
    });
  });
});
