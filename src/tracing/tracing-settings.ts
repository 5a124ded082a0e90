import { StartupRefusal } from '../common/startup-refusal';
import { shownValue } from '../config/shown-value';

type Variables = Record<string, string | undefined>;

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/** Each root sampler, alone or under a parent's decision (parentbased_). */
const ROOT_SAMPLERS = ['always_on', 'always_off', 'traceidratio'] as const;
const SAMPLERS = [...ROOT_SAMPLERS, ...ROOT_SAMPLERS.map((root) => `parentbased_${root}` as const)];

const PROPAGATORS = ['tracecontext', 'baggage', 'none'] as const;
type PropagatorName = (typeof PROPAGATORS)[number];

/** The OpenTelemetry SDK's standard variables this service honours (docs/operations.md, "Traces"). */
export type TracingSettings = NonNullable<ReturnType<typeof tracingSettings>>;

const refuse = (name: string, value: string, expected: string): never => {
  throw new StartupRefusal(`Invalid configuration: ${name}${shownValue(name, value)} ${expected}`);
};

const given = (env: Variables, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
};

function oneOf<T extends string>(env: Variables, name: string, known: readonly T[], fallback: T) {
  const value = given(env, name)?.toLowerCase() ?? fallback;
  return known.includes(value as T)
    ? (value as T)
    : refuse(name, value, `must be one of ${known.join(', ')}`);
}

function positive(env: Variables, name: string): number | undefined {
  const value = given(env, name);
  if (value === undefined) return undefined;
  return /^\d+$/.test(value) && Number(value) > 0
    ? Number(value)
    : refuse(name, value, 'must be a whole number above 0');
}

/** The traces' own variable (OTEL_EXPORTER_OTLP_TRACES_*) wins over the general one. */
const otlpVariable = (env: Variables, setting: string): string =>
  given(env, `OTEL_EXPORTER_OTLP_TRACES_${setting}`) === undefined
    ? `OTEL_EXPORTER_OTLP_${setting}`
    : `OTEL_EXPORTER_OTLP_TRACES_${setting}`;

function ratioOf(env: Variables, sampler: string): number {
  const value = given(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (value === undefined || !sampler.endsWith('traceidratio')) return 1;
  const ratio = Number(value);
  return /^\d*\.?\d+$/.test(value) && ratio <= 1
    ? ratio
    : refuse('OTEL_TRACES_SAMPLER_ARG', value, 'must be a ratio from 0 to 1');
}

function propagatorsOf(list: string): PropagatorName[] {
  const names = list.split(',').map((name) => name.trim().toLowerCase());
  const unknown = names.find((name) => !(PROPAGATORS as readonly string[]).includes(name));
  const known = PROPAGATORS.join(', ');
  return unknown === undefined
    ? (names as PropagatorName[])
    : refuse('OTEL_PROPAGATORS', list, `names "${unknown}": each must be one of ${known}`);
}

/**
 * Undefined (off) without an OTLP endpoint, or with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none.
 * A sampler, propagator or protocol not carried here stops start-up (the SDK would only warn).
 */
export function tracingSettings(env: Variables) {
  const endpointName = otlpVariable(env, 'ENDPOINT');
  const endpoint = given(env, endpointName);
  if (endpoint === undefined || given(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true')
    return undefined;
  if (oneOf(env, 'OTEL_TRACES_EXPORTER', ['otlp', 'none'], 'otlp') === 'none') return undefined;
  if (!/^https?:\/\//i.test(endpoint) || !URL.canParse(endpoint))
    refuse(endpointName, endpoint, 'must be an http:// or https:// URL');
  const sampler = oneOf(env, 'OTEL_TRACES_SAMPLER', SAMPLERS, 'parentbased_always_on');
  const propagators = propagatorsOf(given(env, 'OTEL_PROPAGATORS') ?? 'tracecontext,baggage');
  return {
    protocol: oneOf(env, otlpVariable(env, 'PROTOCOL'), PROTOCOLS, 'http/protobuf'),
    sampler,
    ratio: ratioOf(env, sampler),
    propagators: propagators.includes('none') ? [] : propagators,
    // The batch span processor's bounds; undefined keeps the SDK's default.
    batch: {
      scheduledDelayMillis: positive(env, 'OTEL_BSP_SCHEDULE_DELAY'),
      exportTimeoutMillis: positive(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
      maxQueueSize: positive(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
    },
  };
}
