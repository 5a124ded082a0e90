import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from './processes';
import { Deployment, findObject, KubeObject, objectsIn, Secret } from './manifests';
import { BuildRecord, podman, podmanOk, scratch } from './podman';

/**
 * deploy/kubernetes/ under `podman kube play` (podman 4.3, Debian 12), for the container suite only
 * (npm run test:container, test/container/; podman.ts is the rest of it), changed only where podman
 * differs from a cluster:
 * - it has no Services: the Redis Service's name is mapped to the Redis pod's address (hostAliases);
 * - it honours `replicas`, but publishes every containerPort on the host's same port, so a second
 *   replica cannot start: the Deployment is played twice, renamed, one replica each, its ports
 *   published on free ports of 127.0.0.1;
 * - a Secret played from YAML is stored as its text, which secretKeyRef then cannot read: the
 *   Secret is created as the JSON podman reads (each key's value in base64).
 * Only the files named below are read, so the Services, the PodDisruptionBudget, the
 * HorizontalPodAutoscaler, the NetworkPolicy and the Secret document are left out: podman has no
 * use for them.
 */

/** The example Redis, a kustomize Component (deploy/kubernetes/kustomization.yaml). */
const REDIS_EXAMPLE = 'components/redis-example/redis-example.yaml';

const redisDeployment = () =>
  findObject<Deployment>(objectsIn(REDIS_EXAMPLE), 'Deployment', 'vehicle-depreciation-redis');
const secret = () =>
  findObject<Secret>(objectsIn('secret.yaml'), 'Secret', 'vehicle-depreciation-redis');

/** One played copy of the service's Deployment, its ports published on 127.0.0.1. */
interface Replica {
  /** Its only container, as podman names it (`<deployment>-pod-0-<container>`). */
  container: string;
  port: number;
  metricsPort: number;
}

/**
 * The Redis image the example names. Where the public images cannot be pulled (scripts/image.sh
 * built stand-in bases), a stand-in: the stand-in Debian with Debian's redis-server.
 */
async function redisImage(built: BuildRecord, image: string): Promise<void> {
  if ((await podman(['image', 'exists', image])).code === 0) return;
  if (!built.standInBases) {
    await podmanOk(['pull', '-q', image]);
    return;
  }
  const context = scratch();
  writeFileSync(
    join(context.path, 'Containerfile'),
    `FROM ${built.runtimeImage}\n` +
      'RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ' +
      '--no-install-recommends redis-server >/dev/null && rm -rf /var/lib/apt/lists/*\n' +
      'CMD ["redis-server"]\n',
  );
  await podmanOk(['build', '-q', '-t', image, context.path]).finally(context.remove);
}

export class KubePlay {
  private readonly folder = scratch();
  private readonly pods: string[] = [];
  readonly network = `vehicle-depreciation-test-${process.pid}`;
  readonly replicas: Replica[] = [];
  redis = '';

  /** Plays the example Redis, then the service's Deployment twice (a, b) with its ConfigMap. */
  async start(built: BuildRecord): Promise<void> {
    const redis = redisDeployment();
    await redisImage(built, redis.spec.template.spec.containers[0].image);
    await podmanOk(['network', 'create', this.network]);
    await this.createSecret();
    this.redis = await this.play('redis.yaml', [redis]);
    const address = await podmanOk([
      'inspect',
      '--format',
      '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
      this.redis,
    ]);
    for (const name of ['a', 'b']) this.replicas.push(await this.playReplica(name, address));
  }

  private async createSecret(): Promise<void> {
    const { metadata, stringData } = secret();
    const data = Object.entries(stringData).map(([key, value]) => [
      key,
      Buffer.from(value).toString('base64'),
    ]);
    // From a file: podman takes `-` only from a FIFO, and Node's pipes are sockets.
    const file = join(this.folder.path, 'secret.json');
    writeFileSync(file, JSON.stringify(Object.fromEntries(data)));
    await podman(['secret', 'rm', metadata.name]);
    await podmanOk(['secret', 'create', metadata.name, file]);
  }

  private async playReplica(name: string, redisAddress: string): Promise<Replica> {
    const copy = findObject<Deployment>(
      objectsIn('deployment.yaml'),
      'Deployment',
      'vehicle-depreciation',
    );
    copy.metadata.name = `${copy.metadata.name}-${name}`;
    copy.spec.replicas = 1;
    const pod = copy.spec.template.spec;
    // The Redis Service's name, which REDIS_URL (secret.yaml) names.
    const redisService = findObject(
      objectsIn(REDIS_EXAMPLE),
      'Service',
      'vehicle-depreciation-redis',
    );
    pod.hostAliases = [{ ip: redisAddress, hostnames: [redisService.metadata.name] }];
    const [port, metricsPort] = [await freePort(), await freePort()];
    const hostPorts: Record<string, number> = { http: port, metrics: metricsPort };
    for (const containerPort of pod.containers[0].ports) {
      containerPort.hostIP = '127.0.0.1';
      containerPort.hostPort = hostPorts[containerPort.name];
    }
    const container = await this.play(`${name}.yaml`, [...objectsIn('configmap.yaml'), copy]);
    return { container, port, metricsPort };
  }

  /** Writes `manifests` to one file, plays it, and answers its (one) container's name. */
  private async play(file: string, objects: KubeObject[]): Promise<string> {
    const path = join(this.folder.path, file);
    writeFileSync(path, objects.map((object) => stringify(object)).join('---\n'));
    await podmanOk(['kube', 'play', '--replace', '--network', this.network, path]);
    const deployment = objects.find((object) => object.kind === 'Deployment') as Deployment;
    const pod = `${deployment.metadata.name}-pod-0`;
    this.pods.push(pod);
    return `${pod}-${deployment.spec.template.spec.containers[0].name}`;
  }

  /** Removes the pods, the secret and the network, whatever was started. */
  async stop(): Promise<void> {
    if (this.pods.length > 0) await podman(['pod', 'rm', '--force', '--time', '0', ...this.pods]);
    await podman(['secret', 'rm', secret().metadata.name]);
    await podman(['network', 'rm', '--force', this.network]);
    this.folder.remove();
  }
}
