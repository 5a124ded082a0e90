import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

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
    replicas: number;
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

/** The objects of one file of deploy/kubernetes/, in order; a YAML error throws. */
export function objectsIn(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(join(MANIFESTS, file), 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
    return document.toJS() as KubeObject;
  });
}

/** Every object of every YAML file in deploy/kubernetes/, with its file. */
export const allManifests = (): { file: string; object: KubeObject }[] =>
  readdirSync(MANIFESTS)
    .filter((file) => file.endsWith('.yaml'))
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
