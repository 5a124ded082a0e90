import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from './processes';
import { send } from './http';

// The container suite's helpers (npm run test:container, test/container/), with kube-play.ts: the
// image built and run under podman. npm test does not use them.

/** The repository's root, where `npm run image` runs and writes build/image/. */
export const ROOT = join(__dirname, '..', '..');
export const IMAGE = 'vehicle-depreciation:latest';

/** What scripts/image.sh records in build/image/image.json. */
export interface BuildRecord {
  tag: string;
  sizeBytes: number;
  buildSeconds: number;
  buildImage: string;
  runtimeImage: string;
  standInBases: boolean;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to its end without blocking the event loop (a test's clients keep sending while
 * `podman stop` waits): its exit code and output, whatever the code.
 */
export function run(command: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

// Debian's crun cannot run containers under cgroup v1 (no cgroup.controllers at the top), as
// scripts/image.sh decides too.
const RUNTIME = existsSync('/sys/fs/cgroup/cgroup.controllers') ? [] : ['--runtime', 'runc'];

/** podman with this machine's runtime. */
export const podman = (args: string[]): Promise<Ran> => run('podman', [...RUNTIME, ...args]);

/** podman that must succeed: its stdout, trimmed; otherwise fails with what it said. */
export async function podmanOk(args: string[]): Promise<string> {
  const ran = await podman(args);
  if (ran.code !== 0) {
    throw new Error(`podman ${args.join(' ')} exited ${ran.code}: ${ran.stderr || ran.stdout}`);
  }
  return ran.stdout.trim();
}

/** `npm run image`: builds the image (from cache when nothing changed) and reads its record. */
export async function buildImage(): Promise<BuildRecord> {
  const built = await run('bash', ['scripts/image.sh']);
  if (built.code !== 0) throw new Error(`npm run image failed:\n${built.stdout}${built.stderr}`);
  process.stderr.write(built.stdout);
  return JSON.parse(readFileSync(join(ROOT, 'build/image/image.json'), 'utf8')) as BuildRecord;
}

/** A container of the image, its API published on `port` of 127.0.0.1 (start: `podman run -d`). */
export class Container {
  constructor(
    readonly name: string,
    readonly port: number,
  ) {}

  static async start(env: Record<string, string> = {}, options: string[] = []): Promise<Container> {
    const port = await freePort();
    const name = `vehicle-depreciation-test-${process.pid}-${port}`;
    const environment = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
    const publish = ['-p', `127.0.0.1:${port}:3000`];
    await podmanOk(['run', '-d', '--name', name, ...publish, ...environment, ...options, IMAGE]);
    const container = new Container(name, port);
    await container.untilReady();
    return container;
  }

  /** Waits until GET /health/ready answers 200 through the published port. */
  untilReady(): Promise<void> {
    return this.until('ready', '/health/ready', () => true);
  }

  /** Waits until GET /health says `ok`: with Redis, its counters are shared. */
  untilShared(): Promise<void> {
    return this.until('shared', '/health', (body) => (body as { status?: string }).status === 'ok');
  }

  private async until(what: string, path: string, done: (body: unknown) => boolean) {
    const check = () =>
      send({ port: this.port, path }).then(
        (answer) => answer.status === 200 && done(answer.json),
        () => false,
      );
    await waitFor(`${this.name} to be ${what}`, check, 30_000, 100).catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await this.logs()}`);
    });
  }

  /** `podman inspect --format`. */
  inspect(format: string): Promise<string> {
    return podmanOk(['inspect', '--format', format, this.name]);
  }

  exec(command: string[]): Promise<Ran> {
    return podman(['exec', this.name, ...command]);
  }

  async logs(): Promise<string> {
    return (await podman(['logs', this.name])).stdout;
  }

  /** Removes it, running or not. */
  async remove(): Promise<void> {
    await podman(['rm', '--force', '--time', '0', this.name]);
  }
}

/** A throwaway folder, for a build context. */
export function scratch(): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'vehicle-depreciation-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
