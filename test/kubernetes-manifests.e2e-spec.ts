import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateEnvironment } from '../src/config/environment';
import {
  allManifests,
  Budget,
  ConfigMap,
  Deployment,
  findObject,
  KubeObject,
  kustomizationIn,
  Labels,
  MANIFESTS,
  Secret,
  Service,
} from '../src/testing/manifests';

/**
 * deploy/kubernetes/: every object valid against Kubernetes' own schemas (the kubernetes-models
 * package, generated from them), and the figures docs/operations.md derives held to their formulas:
 * the grace period covers the drain, the memory limit covers the worst case of the pod's settings,
 * the autoscaler's bounds agree with the PodDisruptionBudget. The objects are those
 * `kubectl apply -k` renders: kustomization.yaml's files as written, since it transforms nothing
 * (checked below). test/container/container.container-spec.ts plays them under `podman kube play`.
 */

const MB = 1_000_000;
const MIB = 1024 * 1024;

interface Selector {
  matchLabels: Labels;
}

/** The fields of the service's Deployment read here beyond manifests.ts's. */
type ApiDeployment = Deployment & {
  spec: {
    selector: Selector;
    strategy: { rollingUpdate: { maxSurge: number; maxUnavailable: number } };
    template: { spec: { topologySpreadConstraints: { labelSelector: Selector }[] } };
  };
};

interface Autoscaler extends KubeObject {
  spec: {
    scaleTargetRef: { apiVersion: string; kind: string; name: string };
    minReplicas: number;
    maxReplicas: number;
    metrics: {
      type: string;
      resource: { name: string; target: { type: string; averageUtilization: number } };
    }[];
    behavior: {
      scaleDown: {
        stabilizationWindowSeconds: number;
        policies: { type: string; value: number; periodSeconds: number }[];
      };
    };
  };
}

interface NetworkPolicy extends KubeObject {
  spec: {
    podSelector: Selector;
    policyTypes: string[];
    ingress: {
      from?: Record<string, unknown>[];
      ports?: { protocol: string; port: number | string }[];
    }[];
  };
}

/** kubernetes-models' class for an object's apiVersion and kind (`apps/v1` + `Deployment`). */
async function modelOf(object: KubeObject) {
  // ESM-only: imported, not required.
  const module = (await import(`kubernetes-models/${object.apiVersion}/${object.kind}`)) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
  return module[object.kind];
}

/** The optional kustomize Components, `components/<name>`, each in its own folder. */
const components = readdirSync(join(MANIFESTS, 'components'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => `components/${entry.name}`)
  .sort();
/** With the example Redis, which the pods' REDIS_URL names: the objects checked here. */
const all = allManifests(['components/redis-example']);
/** With every Component (the PrometheusRule's schema and rules: test/prometheus.e2e-spec.ts). */
const everything = allManifests(components);
const find = <T extends KubeObject>(kind: string, name: string): T =>
  findObject<T>(
    all.map(({ object }) => object),
    kind,
    name,
  );

const { version } = JSON.parse(readFileSync(join(MANIFESTS, '../../package.json'), 'utf8')) as {
  version: string;
};
const deployment = find<ApiDeployment>('Deployment', 'vehicle-depreciation');
const pod = deployment.spec.template.spec;
const [api] = pod.containers;
const config = find<ConfigMap>('ConfigMap', 'vehicle-depreciation').data;
const secret = find<Secret>('Secret', 'vehicle-depreciation-redis').stringData;
const service = (name: string) => find<Service>('Service', name).spec;
const budget = find<Budget>('PodDisruptionBudget', 'vehicle-depreciation').spec;
const autoscaler = find<Autoscaler>('HorizontalPodAutoscaler', 'vehicle-depreciation').spec;
const policy = find<NetworkPolicy>('NetworkPolicy', 'vehicle-depreciation').spec;
/** The YAML files of a folder of deploy/kubernetes/ but its kustomization.yaml, sorted. */
const yamlFilesIn = (folder: string) =>
  readdirSync(join(MANIFESTS, folder))
    .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
    .sort();
const keyOf = (object: KubeObject) => `${object.kind} ${object.metadata.name}`;

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

/** A Kubernetes quantity of CPU in cores (`500m`, `"1"`). */
const cores = (quantity: string) =>
  quantity.endsWith('m') ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity);

/** The labels every object carries (docs/operations.md, "Kubernetes"), with its component. */
const recommendedLabels = (component: string): Labels => ({
  'app.kubernetes.io/name': 'vehicle-depreciation',
  'app.kubernetes.io/instance': 'vehicle-depreciation',
  'app.kubernetes.io/version': version,
  'app.kubernetes.io/component': component,
  'app.kubernetes.io/part-of': 'vehicle-depreciation',
  'app.kubernetes.io/managed-by': 'kustomize',
});

/** Each object's component: `metrics` for the metrics Service, `config` for its settings. */
const COMPONENT_OF: Record<string, string> = {
  'ConfigMap vehicle-depreciation': 'config',
  'Secret vehicle-depreciation-redis': 'config',
  'Deployment vehicle-depreciation': 'api',
  'Service vehicle-depreciation': 'api',
  'Service vehicle-depreciation-metrics': 'metrics',
  'PodDisruptionBudget vehicle-depreciation': 'api',
  'HorizontalPodAutoscaler vehicle-depreciation': 'api',
  'NetworkPolicy vehicle-depreciation': 'api',
  'Deployment vehicle-depreciation-redis': 'redis-example',
  'Service vehicle-depreciation-redis': 'redis-example',
  'PrometheusRule vehicle-depreciation': 'monitoring',
};

/** What the selectors name, and only that: the labels that never change between versions. */
const API_PODS = {
  'app.kubernetes.io/name': 'vehicle-depreciation',
  'app.kubernetes.io/component': 'api',
};
const REDIS_PODS = {
  'app.kubernetes.io/name': 'vehicle-depreciation',
  'app.kubernetes.io/component': 'redis-example',
};

/**
 * The sources the NetworkPolicy admits to a container port: the `from` of every rule that names the
 * port (by number or name) or names none; a rule without `from` admits any source (`anySource`).
 */
function sourcesOf(portName: string): unknown[] {
  const port = api.ports.find((candidate) => candidate.name === portName)?.containerPort;
  return policy.ingress
    .filter(
      (rule) =>
        !rule.ports || rule.ports.some((named) => named.port === port || named.port === portName),
    )
    .flatMap((rule) => rule.from ?? [{ anySource: true }]);
}

const namespaceNamed = (name: string) => ({
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } },
});

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

  it('holds the kinds an operator needs: Deployment, Services, PodDisruptionBudget, autoscaler, NetworkPolicy, ConfigMap, Secret, the example Redis', () => {
    expect(all.map(({ object }) => keyOf(object)).sort()).toEqual([
      'ConfigMap vehicle-depreciation',
      'Deployment vehicle-depreciation',
      'Deployment vehicle-depreciation-redis',
      'HorizontalPodAutoscaler vehicle-depreciation',
      'NetworkPolicy vehicle-depreciation',
      'PodDisruptionBudget vehicle-depreciation',
      'Secret vehicle-depreciation-redis',
      'Service vehicle-depreciation',
      'Service vehicle-depreciation-metrics',
      'Service vehicle-depreciation-redis',
    ]);
    // The example Redis only through its Component: `kubectl apply -k` alone leaves it out.
    expect(allManifests().map(({ file }) => file)).not.toContain(
      'components/redis-example/redis-example.yaml',
    );
  });

  it('lists every YAML file of deploy/kubernetes/ in kustomization.yaml, and transforms none', () => {
    const kustomization = kustomizationIn('.');
    // No other field: no `labels`, patch or prefix, so the files are what the cluster gets.
    expect(kustomization).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: expect.any(Array) as unknown,
    });
    expect([...kustomization.resources].sort()).toEqual(yamlFilesIn('.'));
    expect(yamlFilesIn('.')).toContain('networkpolicy.yaml');
  });

  it('makes each folder of components/ a Component listing its own files, named in kustomization.yaml', () => {
    expect(components).toContain('components/redis-example');
    const comment = readFileSync(join(MANIFESTS, 'kustomization.yaml'), 'utf8');
    for (const component of components) {
      expect([component, kustomizationIn(component)]).toEqual([
        component,
        {
          apiVersion: 'kustomize.config.k8s.io/v1alpha1',
          kind: 'Component',
          resources: yamlFilesIn(component),
        },
      ]);
      // How to enable it, commented out: both Components are optional.
      expect(comment).toMatch(new RegExp(`^#\\s+- ${component}$`, 'm'));
    }
  });

  it('carries the six recommended labels, version package.json’s, on every object and pod template', () => {
    expect(everything.map(({ object }) => keyOf(object)).sort()).toEqual(
      Object.keys(COMPONENT_OF).sort(),
    );
    for (const { object } of everything) {
      const labels = recommendedLabels(COMPONENT_OF[keyOf(object)]);
      expect([keyOf(object), object.metadata.labels]).toEqual([
        keyOf(object),
        expect.objectContaining(labels),
      ]);
      if (object.kind === 'Deployment') {
        const template = (object as Deployment).spec.template.metadata.labels;
        expect([keyOf(object), template]).toEqual([keyOf(object), labels]);
      }
    }
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('selects pods on name and component only, so that a new version never orphans one', () => {
    expect(deployment.spec.selector).toEqual({ matchLabels: API_PODS });
    expect(pod.topologySpreadConstraints.map(({ labelSelector }) => labelSelector)).toEqual([
      { matchLabels: API_PODS },
    ]);
    expect(service('vehicle-depreciation').selector).toEqual(API_PODS);
    expect(service('vehicle-depreciation-metrics').selector).toEqual(API_PODS);
    expect(budget.selector).toEqual({ matchLabels: API_PODS });
    expect(policy.podSelector).toEqual({ matchLabels: API_PODS });
    const redis = find<ApiDeployment>('Deployment', 'vehicle-depreciation-redis');
    expect(redis.spec.selector).toEqual({ matchLabels: REDIS_PODS });
    expect(service('vehicle-depreciation-redis').selector).toEqual(REDIS_PODS);
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
    expect(autoscaler.minReplicas).toBeGreaterThanOrEqual(2);
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
    expect(selects(budget.selector.matchLabels)).toBe(true);
    expect(selects(policy.podSelector.matchLabels)).toBe(true);
    // With two replicas, one stays up through a drained node or a cluster upgrade.
    expect(budget.maxUnavailable).toBe(autoscaler.minReplicas - 1);
  });

  it('scales the Deployment on CPU, never below what the PodDisruptionBudget keeps up', () => {
    expect(autoscaler.scaleTargetRef).toEqual({
      apiVersion: deployment.apiVersion,
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    // The autoscaler owns the count: a `replicas` here would reset it at every `kubectl apply`.
    expect(deployment.spec.replicas).toBeUndefined();
    expect(autoscaler.minReplicas).toBeGreaterThanOrEqual(budget.maxUnavailable + 1);
    expect([autoscaler.minReplicas, autoscaler.maxReplicas]).toEqual([2, 10]);
    expect(autoscaler.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
      },
    ]);
    // A percentage of the request: 70 % of 500m, 0.35 CPU a pod, under the limit of 1 CPU.
    const { requests, limits } = api.resources;
    const target =
      (cores(requests.cpu) * autoscaler.metrics[0].resource.target.averageUtilization) / 100;
    expect(target).toBeCloseTo(0.35);
    expect(target).toBeLessThan(cores(limits.cpu));
    // A rollout adds one pod before it stops one: maxReplicas + 1 pods at most.
    expect(deployment.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
  });

  it('scales down one pod at a time, each drained before the next, after a 5-minute window', () => {
    const { scaleDown } = autoscaler.behavior;
    expect(scaleDown.stabilizationWindowSeconds).toBe(300);
    // As the budget lets evictions take them: one pod per period.
    expect(scaleDown.policies).toEqual([
      { type: 'Pods', value: budget.maxUnavailable, periodSeconds: 60 },
    ]);
    expect(scaleDown.policies[0].periodSeconds).toBeGreaterThan(pod.terminationGracePeriodSeconds);
  });

  it('admits the ingress controller to the API port and the monitoring namespace to the metrics port only', () => {
    expect(policy.podSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    // Egress stays open (its comment says why): only Ingress is restricted.
    expect(policy.policyTypes).toEqual(['Ingress']);
    expect(sourcesOf('http')).toEqual([namespaceNamed('ingress-nginx')]);
    expect(sourcesOf('metrics')).toEqual([namespaceNamed('monitoring')]);
    // Every rule names its port: none admits a source to both, or to a port not named here.
    expect(policy.ingress.map((rule) => rule.ports?.length)).toEqual([1, 1]);
  });

  it('runs the example Redis as one primary that never evicts a counter', () => {
    const redis = find<Deployment>('Deployment', 'vehicle-depreciation-redis');
    expect(redis.spec.replicas).toBe(1);
    const command = redis.spec.template.spec.containers[0].command?.join(' ');
    expect(command).toMatch(/--maxmemory-policy noeviction/);
    expect(command).toMatch(/--requirepass "\$REDIS_PASSWORD"/);
  });
});
