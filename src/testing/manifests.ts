import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/**
 * deploy/kubernetes/'s objects, parsed, for the tests that check them (test/kubernetes-manifests)
 * and play them under podman (test/container/). The types name only the fields the tests read or
 * change; kubernetes-models checks every field against Kubernetes' schemas.
 */

export const MANIFESTS = join(__dirname, '..', '..', 'deploy', 'kubernetes');

export type Labels = Record<string, string>;

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Labels };
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

interface ContainerPort {
  name: string;
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  env: EnvVar[];
  ports: ContainerPort[];
  readinessProbe: { httpGet: unknown };
  livenessProbe: { httpGet: unknown };
  resources: { requests: Labels; limits: Labels };
  securityContext: unknown;
}

export interface Deployment extends KubeObject {
  spec: {
    /** Unset in deployment.yaml: the HorizontalPodAutoscaler owns the count. */
    replicas?: number;
    template: {
      metadata: { labels: Labels };
      spec: {
        containers: Container[];
        securityContext: Record<string, unknown>;
        terminationGracePeriodSeconds: number;
        hostAliases?: { ip: string; hostnames: string[] }[];
      };
    };
  };
}

export interface Service extends KubeObject {
  spec: {
    type: string;
    selector: Labels;
    ports: { name: string; port: number; targetPort: string }[];
  };
}

export interface Budget extends KubeObject {
  spec: { maxUnavailable: number; selector: { matchLabels: Labels } };
}

export interface ConfigMap extends KubeObject {
  data: Labels;
}

export interface Secret extends KubeObject {
  stringData: Labels;
}

/** The objects of one file of deploy/kubernetes/ (a path in it), in order; a YAML error throws. */
export function objectsIn(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(join(MANIFESTS, file), 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
    return document.toJS() as KubeObject;
  });
}

/** A kustomization.yaml's fields that these files use: what it lists, nothing it transforms. */
export interface Kustomization {
  apiVersion: string;
  kind: string;
  resources: string[];
}

/** The kustomization.yaml of deploy/kubernetes/ (`.`) or of a Component's folder in it. */
export const kustomizationIn = (folder: string): Kustomization =>
  parse(readFileSync(join(MANIFESTS, folder, 'kustomization.yaml'), 'utf8')) as Kustomization;

/**
 * The objects `kubectl apply -k deploy/kubernetes` applies, with their files (relative to
 * deploy/kubernetes/), then those of the Components named (`components/redis-example`): the files
 * each kustomization lists, as written, since none transforms them (test/kubernetes-manifests).
 */
export const allManifests = (components: string[] = []): { file: string; object: KubeObject }[] =>
  ['.', ...components]
    .flatMap((folder) => kustomizationIn(folder).resources.map((file) => posix.join(folder, file)))
    .flatMap((file) => objectsIn(file).map((object) => ({ file, object })));

/** The object of that kind and name among `objects`; throws when there is none. */
export function findObject<T extends KubeObject>(
  objects: KubeObject[],
  kind: string,
  name: string,
): T {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in deploy/kubernetes/`);
  return found as T;
}
