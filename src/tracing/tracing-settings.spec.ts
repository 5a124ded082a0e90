import { StartupRefusal } from '../common/startup-refusal';
import { tracingSettings } from './tracing-settings';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

describe('tracingSettings (the standard OTEL_* variables)', () => {
  it('is off without an endpoint, or when the SDK or the exporter is turned off', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
    expect(tracingSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(tracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it("takes the specification's defaults with an endpoint alone, the traces' own one too", () => {
    const defaults = {
      protocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      ratio: 1,
      propagators: ['tracecontext', 'baggage'],
      batch: {},
    };
    expect(tracingSettings(ENDPOINT)).toEqual(defaults);
    const traces = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces' };
    expect(tracingSettings(traces)).toEqual(defaults);
  });

  it('reads the protocol, the traces one first, and the sampler with its ratio', () => {
    expect(
      tracingSettings({
        ...ENDPOINT,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.01',
        OTEL_PROPAGATORS: 'tracecontext',
        OTEL_BSP_SCHEDULE_DELAY: '500',
      }),
    ).toMatchObject({
      protocol: 'http/json',
      sampler: 'parentbased_traceidratio',
      ratio: 0.01,
      propagators: ['tracecontext'],
      batch: { scheduledDelayMillis: 500 },
    });
    // The argument is the ratio samplers' only.
    const on = { ...ENDPOINT, OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: 'x' };
    expect(tracingSettings(on)?.ratio).toBe(1);
    expect(tracingSettings({ ...ENDPOINT, OTEL_PROPAGATORS: 'none' })?.propagators).toEqual([]);
  });

  it.each([
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      'OTEL_EXPORTER_OTLP_PROTOCOL="grpc" must be one of http/protobuf, http/json',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'jaeger_remote' },
      'OTEL_TRACES_SAMPLER="jaeger_remote" must be one of',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' },
      'OTEL_TRACES_SAMPLER_ARG="1.5" must be a ratio from 0 to 1',
    ],
    [{ OTEL_PROPAGATORS: 'tracecontext,b3' }, 'OTEL_PROPAGATORS="tracecontext,b3" names "b3"'],
    [{ OTEL_BSP_SCHEDULE_DELAY: '-1' }, 'OTEL_BSP_SCHEDULE_DELAY="-1" must be a whole number'],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER="zipkin" must be one of otlp, none'],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      'OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318" must be an http:// or https:// URL',
    ],
  ])('refuses %j in one line naming the variable', (env, message) => {
    const read = () => tracingSettings({ ...ENDPOINT, ...env });
    expect(read).toThrow(StartupRefusal);
    expect(read).toThrow(`Invalid configuration: ${message}`);
  });
});
