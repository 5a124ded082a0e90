import { spawnSync } from 'node:child_process';

/** Whether an executable is on PATH. */
function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/**
 * `describe` for tests that start real programs (redis-server, faketime, nginx). When one is
 * missing: on CI (`CI=true`) the suite fails, naming it; elsewhere it says so in one line and the
 * suite is skipped, so `npm test` still runs on a machine without them.
 */
export function describeWithTools(tools: string[], name: string, body: () => void): void {
  const missing = tools.filter((tool) => !hasCommand(tool));
  const packages = new Set(missing.map((tool) => PACKAGE_OF[tool] ?? tool));
  describeUnless(missing.join(', '), `apt-get install ${[...packages].join(' ')}`, name, body);
}

/** Debian's package of a program, where the two names differ. */
const PACKAGE_OF: Record<string, string> = { promtool: 'prometheus', 'redis-cli': 'redis-tools' };

/**
 * `describe`, unless `missing` (what the suite needs and this machine lacks) is not empty: then on
 * CI (`CI=true`) the suite fails, naming it; elsewhere one line says so and it is skipped.
 */
function describeUnless(missing: string, install: string, name: string, body: () => void): void {
  if (missing !== '' && process.env.CI === 'true') {
    describe(name, () => {
      it(`needs ${missing}`, () => {
        throw new Error(`${name} needs ${missing} (${install})`);
      });
    });
    return;
  }
  if (missing !== '') process.stderr.write(`skipped: ${name} needs ${missing} (${install})\n`);
  const describeIfPresent = missing === '' ? describe : describe.skip;
  describeIfPresent(name, body);
}

/** The command that runs a program in a network namespace of its own, with loopback only. */
export const ISOLATED_NETWORK = ['unshare', '--map-root-user', '--net'];

/**
 * `describe` for tests whose program must send nothing off the machine (a DNS lookup included):
 * they run it under ISOLATED_NETWORK (util-linux's unshare, with unprivileged user namespaces).
 */
export function describeIsolated(name: string, body: () => void): void {
  const [command, ...args] = ISOLATED_NETWORK;
  const works = spawnSync(command, [...args, 'true'], { stdio: 'ignore' }).status === 0;
  const install = 'apt-get install util-linux; sysctl kernel.unprivileged_userns_clone=1';
  describeUnless(works ? '' : `${ISOLATED_NETWORK.join(' ')}`, install, name, body);
}

/**
 * Debian's libfaketime, preloaded the way `faketime` does it (ld.so expands `$LIB`), but without
 * faketime's fork, which would outlive the SIGTERM that stops the server.
 */
export const LIBFAKETIME = '/usr/$LIB/faketime/libfaketime.so.1';
