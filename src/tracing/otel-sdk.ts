import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import * as core from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import * as resources from '@opentelemetry/resources';
import * as sdk from '@opentelemetry/sdk-trace';
import type { TracingSettings } from './tracing-settings';

/** service.name unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES says otherwise. */
const SERVICE_NAME = 'vehicle-depreciation';

export type Sdk = ReturnType<typeof loadSdk>;

export function loadSdk(settings: TracingSettings) {
  // Both read OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT and _COMPRESSION themselves.
  const Exporter = settings.protocol === 'http/json' ? JsonExporter : ProtobufExporter;
  const roots = {
    always_on: new sdk.AlwaysOnSampler(),
    always_off: new sdk.AlwaysOffSampler(),
    traceidratio: new sdk.TraceIdRatioBasedSampler(settings.ratio),
  };
  const root = roots[settings.sampler.replace('parentbased_', '') as keyof typeof roots];
  const parentBased = settings.sampler.startsWith('parentbased_');
  const sampler = parentBased ? new sdk.ParentBasedSampler({ root }) : root;
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': SERVICE_NAME }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const processor = new sdk.BatchSpanProcessor({ exporter: new Exporter(), ...settings.batch });
  const provider = new sdk.TracerProvider({ sampler, resource, spanProcessors: [processor] });
  const propagators = settings.propagators.map((name) =>
    name === 'baggage' ? new core.W3CBaggagePropagator() : new core.W3CTraceContextPropagator(),
  );
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new core.CompositePropagator({ propagators }));
  api.trace.setGlobalTracerProvider(provider);
  return { api, tracer: provider.getTracer(SERVICE_NAME), provider };
}
