import type { Writable } from 'node:stream';
import type { DestinationStream } from 'pino';

const EXIT_FLUSH_TIMEOUT_MS = 2_000;
const FLUSH_POLL_MS = 10;

type Output = Pick<
  Writable,
  'write' | 'writableLength' | 'destroyed' | 'errored' | 'once' | 'on' | 'listeners'
>;

/** A closed pipe (EPIPE) errors the stream, and an error nothing listens to ends the process. */
const ignoreError = (): void => undefined;
const hasFailed = (out: Pick<Output, 'destroyed' | 'errored'>): boolean =>
  out.destroyed || out.errored !== null;

/**
 * stdout that never blocks the event loop on a stalled reader: lines past `bufferBytes` are dropped
 * and counted, as are a closed pipe's. One turn's request lines go in one write (a system call per
 * line was most of their cost). An exit waits a bounded time for stdout (written()).
 */
export class StdoutLog implements DestinationStream {
  private droppedSinceDrain = 0;
  private held = '';
  onResumed: (dropped: number) => void = () => undefined;
  /** An exit that does not wait for written() (a crash) still writes what is held, if it can. */
  private readonly writeHeldAtExit = (): void => this.writeHeld();

  constructor(
    private readonly bufferBytes: number,
    private readonly onDrop: () => void = () => undefined,
    private readonly out: Output = process.stdout,
  ) {
    if (!out.listeners('error').includes(ignoreError)) out.on('error', ignoreError);
  }

  write(line: string): void {
    if (this.held !== '') this.writeHeld();
    if (this.takes(0)) this.out.write(line, this.lostIfFailed(line));
    else this.dropped();
  }

  /** A line that may wait for the end of this turn, counted against the same bound. */
  writeSoon(line: string): void {
    if (!this.takes(this.held.length)) return this.dropped();
    if (this.held === '') {
      setImmediate(() => this.writeHeld());
      process.once('exit', this.writeHeldAtExit);
    }
    this.held += line;
  }

  writeHeld(): void {
    const lines = this.held;
    if (lines === '') return;
    this.held = '';
    process.off('exit', this.writeHeldAtExit);
    if (hasFailed(this.out)) this.droppedEach(lines);
    else this.out.write(lines, this.lostIfFailed(lines));
  }

  written(timeoutMs = EXIT_FLUSH_TIMEOUT_MS): Promise<void> {
    this.writeHeld();
    return stdoutDrained(timeoutMs, this.out);
  }

  private readonly lostIfFailed = (lines: string) => (error?: Error | null) => {
    if (error) this.droppedEach(lines);
  };

  private droppedEach(lines: string): void {
    let at = lines.indexOf('\n');
    if (at === -1) return this.dropped(); // a line handed over without its newline
    for (; at !== -1; at = lines.indexOf('\n', at + 1)) this.dropped();
  }

  private takes(held: number): boolean {
    const out = this.out;
    return out.writableLength + held < this.bufferBytes && !hasFailed(out);
  }

  private dropped(): void {
    this.onDrop();
    this.droppedSinceDrain += 1;
    if (this.droppedSinceDrain > 1) return;
    this.out.once('drain', () => {
      const dropped = this.droppedSinceDrain;
      this.droppedSinceDrain = 0;
      this.onResumed(dropped);
    });
  }
}

/** `process.exit()` drops what stdout still buffers; a stalled reader gets only `timeoutMs`. */
export async function stdoutDrained(
  timeoutMs = EXIT_FLUSH_TIMEOUT_MS,
  out: Pick<Output, 'writableLength' | 'destroyed' | 'errored'> = process.stdout,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (out.writableLength > 0 && !hasFailed(out) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, FLUSH_POLL_MS));
}
