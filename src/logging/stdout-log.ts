import type { Writable } from 'node:stream';
import type { DestinationStream } from 'pino';

/** How long an exit waits for stdout to take what it holds (docs/operations.md, "Logs"). */
const EXIT_FLUSH_TIMEOUT_MS = 2_000;
const FLUSH_POLL_MS = 10;

/** What StdoutLog writes to: the process's stdout, or a stream standing in for it. */
type Output = Pick<
  Writable,
  'write' | 'writableLength' | 'destroyed' | 'errored' | 'once' | 'on' | 'listeners'
>;

/**
 * A reader that closed the pipe (EPIPE) errors the stream; with no listener the error would end
 * the process. One listener per output, however many logs write there.
 */
const ignoreError = (): void => undefined;
const hasFailed = (out: Pick<Output, 'destroyed' | 'errored'>): boolean =>
  out.destroyed || out.errored !== null;

/**
 * The log's destination: stdout, never blocking the event loop. While the reader keeps up each
 * line goes to the kernel at once; while it stalls, lines wait in the stream's buffer up to
 * `bufferBytes` (LOG_BUFFER_BYTES), and past that each line is dropped and counted (`onDrop`).
 * A closed pipe's lines are dropped and counted too. The request lines of one event-loop turn go
 * in one write (writeSoon): a system call per line was most of a request line's cost.
 */
export class StdoutLog implements DestinationStream {
  private droppedSinceDrain = 0;
  /** Request lines held for the end of this turn, in order. */
  private held = '';
  private onResumed: (dropped: number) => void = () => undefined;
  /** An exit that does not wait for written() (a crash) still writes what is held, if it can. */
  private readonly writeHeldAtExit = (): void => this.writeHeld();

  constructor(
    private readonly bufferBytes: number,
    private readonly onDrop: () => void = () => undefined,
    private readonly out: Output = process.stdout,
  ) {
    if (!out.listeners('error').includes(ignoreError)) out.on('error', ignoreError);
  }

  /** pino's one call per line. */
  write(line: string): void {
    if (this.held !== '') this.writeHeld();
    if (this.takes(0)) this.out.write(line, this.lostIfFailed(line));
    else this.dropped();
  }

  /** A line that may wait for the end of this turn, counted against the same bound. */
  writeSoon(line: string): void {
    if (!this.takes(this.held.length)) {
      this.dropped();
      return;
    }
    if (this.held === '') {
      setImmediate(() => this.writeHeld());
      process.once('exit', this.writeHeldAtExit);
    }
    this.held += line;
  }

  /** Hands what is held to stdout, in one write. */
  writeHeld(): void {
    const lines = this.held;
    if (lines === '') return;
    this.held = '';
    process.off('exit', this.writeHeldAtExit);
    if (hasFailed(this.out)) this.droppedEach(lines);
    else this.out.write(lines, this.lostIfFailed(lines));
  }

  /** Resolves once stdout has taken every line so far, held ones too, or after `timeoutMs`. */
  written(timeoutMs = EXIT_FLUSH_TIMEOUT_MS): Promise<void> {
    this.writeHeld();
    return stdoutDrained(timeoutMs, this.out);
  }

  /** A write that met a closed pipe lost its lines (a turn's request lines: maybe many). */
  private lostIfFailed(lines: string): (error?: Error | null) => void {
    return (error) => {
      if (error) this.droppedEach(lines);
    };
  }

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
    if (this.droppedSinceDrain === 1) this.out.once('drain', () => this.drained());
  }

  /** Who reports the lines dropped, once the reader has caught up (the application's logger). */
  whenResumed(report: (dropped: number) => void): void {
    this.onResumed = report;
  }

  private drained(): void {
    const dropped = this.droppedSinceDrain;
    this.droppedSinceDrain = 0;
    this.onResumed(dropped);
  }
}

/**
 * Resolves once stdout has handed what it holds to the kernel, or after `timeoutMs` (a stalled
 * reader must not hold the exit): `process.exit()` drops what a pipe's buffer still holds.
 */
export async function stdoutDrained(
  timeoutMs = EXIT_FLUSH_TIMEOUT_MS,
  out: Pick<Output, 'writableLength' | 'destroyed' | 'errored'> = process.stdout,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (out.writableLength > 0 && !hasFailed(out) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, FLUSH_POLL_MS));
  }
}
