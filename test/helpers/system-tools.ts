import { spawnSync } from 'node:child_process';

/** Whether an executable is on PATH. */
export function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/**
 * `describe` for tests that start real programs (redis-server, faketime, nginx). When one is
 * missing: on CI (`CI=true`) the suite fails, naming it; elsewhere it says so in one line and the
 * suite is skipped, so `npm test` still runs on a machine without them.
 */
export function describeWithTools(tools: string[], name: string, body: () => void): void {
  const missing = tools.filter((tool) => !hasCommand(tool));
  const install = `apt-get install ${missing.join(' ')}`;
  if (missing.length > 0 && process.env.CI === 'true') {
    describe(name, () => {
      it(`needs ${missing.join(', ')}`, () => {
        throw new Error(`${name} needs ${missing.join(', ')} on PATH (${install})`);
      });
    });
    return;
  }
  if (missing.length > 0) {
    process.stderr.write(`skipped: ${name} needs ${missing.join(', ')} (${install})\n`);
  }
  const describeIfPresent = missing.length === 0 ? describe : describe.skip;
  describeIfPresent(name, body);
}

/**
 * Debian's libfaketime, preloaded the way `faketime` does it (ld.so expands `$LIB`), but without
 * faketime's fork, which would outlive the SIGTERM that stops the server.
 */
export const LIBFAKETIME = '/usr/$LIB/faketime/libfaketime.so.1';
