import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateEnvironment } from '../src/config/environment';
import {
  allManifests,
  Budget,
  ConfigMap,
  Deployment,
  findObject,
  KubeObject,
  Labels,
  MANIFESTS,
  Secret,
  Service,
} from '../src/testing/manifests';

/**
 * deploy/kubernetes/: every object valid against Kubernetes' own schemas (the kubernetes-models
 * package, generated from them), and the figures docs/operations.md derives held to their formulas:
 * the grace period covers the drain, the memory limit covers the worst case of the pod's settings.
 * test/container/container.container-spec.ts plays the same files under `podman kube play`.
 */

const MB = 1_000_000;
const MIB = 1024 * 1024;

/** kubernetes-models' class for an object's apiVersion and kind (`apps/v1` + `Deployment`). */
async function modelOf(object: KubeObject) {
  // ESM-only: imported, not required.
  const module = (await import(`kubernetes-models/${object.apiVersion}/${object.kind}`)) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
  return module[object.kind];
}

const all = allManifests();
const find = <T extends KubeObject>(kind: string, name: string): T =>
  findObject<T>(
    all.map(({ object }) => object),
    kind,
    name,
  );

const deployment = find<Deployment>('Deployment', 'vehicle-depreciation');
const pod = deployment.spec.template.spec;
const [api] = pod.containers;
const config = find<ConfigMap>('ConfigMap', 'vehicle-depreciation').data;
const secret = find<Secret>('Secret', 'vehicle-depreciation-redis').stringData;
const service = (name: string) => find<Service>('Service', name).spec;

/** The service's environment in the pod: the ConfigMap, the Secret's URL and the container's env. */
function podEnvironment(): Record<string, string> {
  const env: Record<string, string> = { ...config };
  for (const variable of api.env) {
    const ref = variable.valueFrom?.secretKeyRef;
    env[variable.name] = ref ? secret[ref.key] : (variable.value ?? '');
  }
  return env;
}

/** A Kubernetes quantity of memory in bytes (`768Mi`, `1G`). */
function bytes(quantity: string): number {
  const [, number, unit] = /^(\d+)(Ki|Mi|Gi|k|M|G)?$/.exec(quantity) ?? [];
  const units: Record<string, number> = {
    Ki: 1 << 10,
    Mi: MIB,
    Gi: 1 << 30,
    k: 1e3,
    M: MB,
    G: 1e9,
  };
  return Number(number) * (unit ? units[unit] : 1);
}

describe('deploy/kubernetes/', () => {
  it.each(all.map(({ file, object }) => [file, object.kind, object.metadata.name, object]))(
    '%s: %s %s validates against the Kubernetes schema',
    async (_file, _kind, _name, object) => {
      const Model = await modelOf(object);
      expect(() => new Model(object).validate()).not.toThrow();
    },
  );

  it('the schemas catch a mistake (the validation is not a formality)', async () => {
    const Model = await modelOf(deployment);
    const broken = { ...deployment, spec: { ...deployment.spec, replicas: '2' } };
    expect(() => new Model(broken).validate()).toThrow(/replicas must be integer/);
  });

  it('holds the kinds an operator needs: Deployment, Services, PodDisruptionBudget, ConfigMap, Secret, the example Redis', () => {
    expect(all.map(({ object }) => `${object.kind} ${object.metadata.name}`).sort()).toEqual([
      'ConfigMap vehicle-depreciation',
      'Deployment vehicle-depreciation',
      'Deployment vehicle-depreciation-redis',
      'PodDisruptionBudget vehicle-depreciation',
      'Secret vehicle-depreciation-redis',
      'Service vehicle-depreciation',
      'Service vehicle-depreciation-metrics',
      'Service vehicle-depreciation-redis',
    ]);
  });

  it('gives the pods settings the service accepts, sharing the budget in Redis', () => {
    const environment = validateEnvironment(podEnvironment());
    expect(environment.RATE_LIMIT_STORE).toBe('redis');
    // The one Redis of the example: its Service, with the password the Redis pod requires.
    const url = new URL(environment.REDIS_URL);
    expect(url.hostname).toBe(find<Service>('Service', 'vehicle-depreciation-redis').metadata.name);
    expect(decodeURIComponent(url.password)).toBe(secret['redis-password']);
  });

  it('runs two or more replicas with readiness on /health/ready and liveness on /health/live', () => {
    const { PORT } = validateEnvironment(podEnvironment());
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(api.ports).toContainEqual({ name: 'http', containerPort: PORT });
    expect(api.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    expect(api.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
  });

  it('gives a stopping pod the drain delay, the shutdown timeout, 2 s for the log, and a margin', () => {
    const { SHUTDOWN_DRAIN_DELAY_MS, SHUTDOWN_TIMEOUT_MS } = validateEnvironment(podEnvironment());
    const needed = SHUTDOWN_DRAIN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + 2_000;
    expect(needed).toBe(17_000);
    // At least 5 s more: the kubelet's SIGKILL must never cut a drain short.
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(needed + 5_000);
  });

  it('sets a memory limit above the worst case of its settings (docs/operations.md)', () => {
    const environment = validateEnvironment(podEnvironment());
    // Set explicitly: the default follows the descriptor limit (58,982 at ulimit -n 65,536: 15 GB).
    expect(environment.MAX_CONNECTIONS).toBeGreaterThan(0);
    const worstCase =
      150 * MB +
      environment.MAX_CONNECTIONS * 0.25 * MB +
      environment.MAX_TRACKED_CLIENTS * (120 + 65) +
      environment.OVERFLOW_SKETCH_MB * MIB +
      environment.LOG_BUFFER_BYTES * 2;
    expect(Math.round(worstCase / MB)).toBe(728);
    const { requests, limits } = api.resources;
    expect(bytes(limits.memory)).toBeGreaterThan(worstCase);
    expect(bytes(requests.memory)).toBe(bytes(limits.memory));
    expect(requests.cpu).toBeDefined();
    expect(limits.cpu).toBeDefined();
  });

  it('runs as the image’s non-root user, read-only, without privileges', () => {
    const user = /^USER (\d+):(\d+)$/m.exec(
      readFileSync(join(MANIFESTS, '../../Dockerfile'), 'utf8'),
    );
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: Number(user?.[1]),
      runAsGroup: Number(user?.[2]),
    });
    expect(api.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('names the image npm run image tags with package.json’s version', () => {
    const { version } = JSON.parse(readFileSync(join(MANIFESTS, '../../package.json'), 'utf8')) as {
      version: string;
    };
    expect(api.image).toBe(`vehicle-depreciation:${version}`);
  });

  it('serves /metrics inside the cluster only: on the pod, named by the metrics Service, not by the public one', () => {
    const { METRICS_HOST, METRICS_PORT } = validateEnvironment(podEnvironment());
    expect(METRICS_HOST).toBe('0.0.0.0');
    expect(api.ports).toContainEqual({ name: 'metrics', containerPort: METRICS_PORT });
    expect(service('vehicle-depreciation').ports.map((port) => port.targetPort)).toEqual(['http']);
    const metrics = service('vehicle-depreciation-metrics');
    expect(metrics.type).toBe('ClusterIP');
    expect(metrics.ports).toEqual([{ name: 'metrics', port: METRICS_PORT, targetPort: 'metrics' }]);
  });

  it('selects the Deployment’s pods in its Services and its PodDisruptionBudget', () => {
    const { labels } = deployment.spec.template.metadata;
    const selects = (selector: Labels) =>
      Object.entries(selector).every(([key, value]) => labels[key] === value);
    expect(selects(service('vehicle-depreciation').selector)).toBe(true);
    expect(selects(service('vehicle-depreciation-metrics').selector)).toBe(true);
    const budget = find<Budget>('PodDisruptionBudget', 'vehicle-depreciation').spec;
    expect(selects(budget.selector.matchLabels)).toBe(true);
    // With two replicas, one stays up through a drained node or a cluster upgrade.
    expect(budget.maxUnavailable).toBe(deployment.spec.replicas - 1);
  });

  it('runs the example Redis as one primary that never evicts a counter', () => {
    const redis = find<Deployment>('Deployment', 'vehicle-depreciation-redis');
    expect(redis.spec.replicas).toBe(1);
    const command = redis.spec.template.spec.containers[0].command?.join(' ');
    expect(command).toMatch(/--maxmemory-policy noeviction/);
    expect(command).toMatch(/--requirepass "\$REDIS_PASSWORD"/);
  });
});
