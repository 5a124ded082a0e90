import type { LoggerService } from '@nestjs/common';
import type { AppLogLevel } from '../config/environment';
import { type AppLogger, createAppLogger } from '../logging/app-logger';

/** A Nest logger that keeps its lines (`warn: …`), for the stores under test. */
export class RecordingLogger implements LoggerService {
  readonly lines: string[] = [];
  log(message: string) {
    this.lines.push(`log: ${message}`);
  }
  warn(message: string) {
    this.lines.push(`warn: ${message}`);
  }
  error(message: string) {
    this.lines.push(`error: ${message}`);
  }
}

/** The application's logger at `level`, keeping the JSON lines it would write to stdout. */
export function recordingAppLogger(level: AppLogLevel) {
  const output: string[] = [];
  const logger: AppLogger = createAppLogger(level, {
    write: (line: string) => void output.push(line),
  });
  /** The lines written so far, each parsed. */
  const lines = () => output.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, output, lines };
}
