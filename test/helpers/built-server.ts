import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { RunningProcess } from './child-process';
import { freePort, waitFor } from './free-port';
import { send } from './http-client';

const MAIN = resolve(__dirname, '../../dist/main.js');

export interface BuiltServerOptions {
  /** Environment variables beyond the defaults (HOST 127.0.0.1, a free PORT, LOG_LEVEL warn). */
  env?: Record<string, string>;
  /** Runs it under Debian's faketime with this start time (`@2026-12-31 23:59:55`: the clock runs on). */
  faketime?: string;
}

/**
 * The built server (`node dist/main.js`, as `npm start` runs it) as a separate process on
 * loopback. `npm test` builds first (pretest), so this runs what ships.
 */
export class BuiltServer {
  private constructor(
    readonly url: string,
    private readonly child: RunningProcess,
  ) {}

  static async start(options: BuiltServerOptions = {}): Promise<BuiltServer> {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build first`);
    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TZ: 'UTC',
      NO_COLOR: '1',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...options.env,
    };
    const [command, args] = options.faketime
      ? ['faketime', ['-f', options.faketime, 'node', MAIN]]
      : ['node', [MAIN]];
    const child = RunningProcess.start(command, args, { env });
    const server = new BuiltServer(`http://127.0.0.1:${port}`, child);
    await waitFor(`the built server on port ${port}`, async () => {
      if (child.hasExited) throw new Error(`The built server exited:\n${child.logs}`);
      return send(`${server.url}/health`).then(
        (answer) => answer.status === 200,
        () => false,
      );
    });
    return server;
  }

  /** What the server logged (stdout and stderr). */
  get logs(): string {
    return this.child.logs;
  }

  /** Stops it as an orchestrator would (SIGTERM: the app closes, then the process exits). */
  stop(): Promise<void> {
    return this.child.stop();
  }
}
