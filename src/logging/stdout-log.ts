import type { Writable } from 'node:stream';
import type { DestinationStream } from 'pino';

/**
 * How long an exit waits for stdout to take the log lines it still holds (docs/operations.md,
 * "Logs"): lines written before a normal exit are not lost, and a reader that stays stalled does
 * not hold the process.
 */
const EXIT_FLUSH_TIMEOUT_MS = 2_000;
/** How often an exit looks whether stdout has taken the log's last lines. */
const FLUSH_POLL_MS = 10;

/** What StdoutLog writes to: the process's stdout, or a stream standing in for it. */
type Output = Pick<Writable, 'write' | 'writableLength' | 'destroyed' | 'once' | 'on'>;

/**
 * Outputs that failed (a reader that closed its end of the pipe: EPIPE). Such an error, emitted
 * with no listener, would be thrown and end the process; one listener per output takes it instead,
 * however many loggers write there.
 */
const failed = new WeakSet<Output>();
const watched = new WeakSet<Output>();
function watch(out: Output): void {
  if (watched.has(out)) return;
  watched.add(out);
  out.on('error', () => failed.add(out));
}

/** Every StdoutLog holding lines for the end of this turn of the event loop (writeSoon). */
const holding = new Set<StdoutLog>();
const writeAllHeld = (): void => holding.forEach((log) => log.writeHeld());
let writesHeldAtExit = false;

/**
 * The log's destination: the process's stdout, which never blocks the event loop. On a pipe or a
 * socket (a container runtime, journald, a collector) Node writes asynchronously: each line goes
 * to the kernel at once while the reader keeps up, and waits in the stream's buffer while it does
 * not. That buffer is bounded: once it holds `bufferBytes` (LOG_BUFFER_BYTES; characters, bytes
 * for ASCII lines) or more, each further line is dropped and counted (`onDrop`), never waited for.
 * When the reader has caught up (the buffer drained) `onResumed` is told how many were dropped
 * meanwhile, once. A reader that closed the pipe is never read again: every further line is dropped
 * and counted. A file or a terminal is written synchronously by Node: nothing waits there.
 *
 * The request log's lines (writeSoon) are held until the end of the event loop's turn and handed
 * to stdout together: one write for every answer of the turn rather than one each (a system call
 * per line was most of a request line's cost; bench/README.md, "Where the time goes"). Any other
 * line writes what is held first, so the lines keep their order; an exit writes it (stdoutWritten).
 */
export class StdoutLog implements DestinationStream {
  private droppedSinceDrain = 0;
  /** Request lines held for the end of this turn, in order. */
  private held = '';
  private onResumed: (dropped: number) => void = () => undefined;

  constructor(
    private readonly bufferBytes: number,
    private readonly onDrop: () => void = () => undefined,
    private readonly out: Output = process.stdout,
  ) {
    watch(out);
  }

  /**
   * pino's one call per line. No allocation beyond the stream's own: a buffer at `bufferBytes`
   * or more (at least the stream's high-water mark, so its 'drain' event is due) drops the line.
   */
  write(line: string): void {
    if (this.held !== '') this.writeHeld();
    if (this.takes(0)) this.out.write(line, this.lostIfFailed(line));
    else this.dropped();
  }

  /**
   * A line that may wait for the end of this turn of the event loop, written with the others held
   * then in one write. Counted against the same bound: held and buffered together.
   */
  writeSoon(line: string): void {
    if (!this.takes(this.held.length)) {
      this.dropped();
      return;
    }
    if (this.held === '') {
      holding.add(this);
      setImmediate(() => this.writeHeld());
      // An exit that does not wait for stdoutWritten (a crash) still writes them, if it can.
      if (!writesHeldAtExit) process.once('exit', writeAllHeld);
      writesHeldAtExit = true;
    }
    this.held += line;
  }

  /** Hands what is held to stdout, in one write. */
  writeHeld(): void {
    const lines = this.held;
    if (lines === '') return;
    this.held = '';
    holding.delete(this);
    // A reader that closed the pipe meanwhile: each line held is dropped and counted.
    if (this.out.destroyed || failed.has(this.out)) this.droppedEach(lines);
    else this.out.write(lines, this.lostIfFailed(lines));
  }

  /**
   * What a write is told when it is done: a write that failed (the reader closed the pipe: EPIPE)
   * lost its lines, each counted as dropped. A turn's request lines go in one write, so the write
   * that meets the closed pipe may hold many.
   */
  private lostIfFailed(lines: string): (error?: Error | null) => void {
    return (error) => {
      if (error) this.droppedEach(lines);
    };
  }

  /** Counts each line of `lines` (one or more, each ending in a newline) as dropped. */
  private droppedEach(lines: string): void {
    let at = lines.indexOf('\n');
    if (at === -1) return this.dropped(); // a line handed over without its newline
    for (; at !== -1; at = lines.indexOf('\n', at + 1)) this.dropped();
  }

  /** Whether stdout takes a line more, with `held` characters already waiting to be written. */
  private takes(held: number): boolean {
    const out = this.out;
    return out.writableLength + held < this.bufferBytes && !out.destroyed && !failed.has(out);
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
 * Resolves once stdout has handed every line written so far to the kernel, or after `timeoutMs`
 * (a reader that stays stalled must not hold the exit): awaited before the process exits, since
 * `process.exit()` drops what a pipe's buffer still holds.
 */
export async function stdoutWritten(
  timeoutMs = EXIT_FLUSH_TIMEOUT_MS,
  out: Pick<Writable, 'writableLength'> = process.stdout,
): Promise<void> {
  writeAllHeld();
  const deadline = Date.now() + timeoutMs;
  // A pipe whose reader went away (EPIPE) takes nothing more: no use waiting for it.
  while (out.writableLength > 0 && !failed.has(out as Output) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, FLUSH_POLL_MS));
  }
}
