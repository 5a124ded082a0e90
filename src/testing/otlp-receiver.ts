import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './processes';

type Value = string | number | boolean;

/** A span as both OTLP encodings carry it, ids in hex. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, Value>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, Value>;
  /** The request's Content-Type: which encoding carried it. */
  contentType: string;
}

/** Protobuf's wire format: each field's values by number (varints as bigint, the rest as bytes). */
function fields(bytes: Buffer): Map<number, (bigint | Buffer)[]> {
  const found = new Map<number, (bigint | Buffer)[]>();
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = bytes[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const tag = Number(varint());
    const [field, wire] = [tag >>> 3, tag & 7];
    let value: bigint | Buffer;
    if (wire === 0) value = varint();
    else {
      const length = wire === 1 ? 8 : wire === 5 ? 4 : Number(varint());
      value = bytes.subarray(at, at + length);
      at += length;
    }
    found.set(field, [...(found.get(field) ?? []), value]);
  }
  return found;
}

const all = (message: Map<number, (bigint | Buffer)[]>, field: number) =>
  (message.get(field) ?? []) as Buffer[];
const first = (message: Map<number, (bigint | Buffer)[]>, field: number) => message.get(field)?.[0];

/** opentelemetry/proto/common/v1: KeyValue { key = 1; AnyValue value = 2 }. */
function protobufAttributes(keyValues: Buffer[]): Record<string, Value> {
  const attributes: Record<string, Value> = {};
  for (const bytes of keyValues) {
    const keyValue = fields(bytes);
    const value = fields((first(keyValue, 2) as Buffer | undefined) ?? Buffer.alloc(0));
    const [[kind, [raw]]] = [...value.entries()];
    attributes[String(first(keyValue, 1))] =
      kind === 1
        ? String(raw)
        : kind === 2
          ? raw === 1n
          : kind === 4
            ? (raw as Buffer).readDoubleLE()
            : Number(raw);
  }
  return attributes;
}

/** ExportTraceServiceRequest { repeated ResourceSpans = 1 } (opentelemetry/proto/trace/v1). */
function protobufSpans(body: Buffer): Omit<ReceivedSpan, 'contentType'>[] {
  return all(fields(body), 1).flatMap((resourceSpansBytes) => {
    const resourceSpans = fields(resourceSpansBytes);
    const resource = fields((first(resourceSpans, 1) as Buffer | undefined) ?? Buffer.alloc(0));
    const resourceAttributes = protobufAttributes(all(resource, 1));
    return all(resourceSpans, 2).flatMap((scopeSpans) =>
      all(fields(scopeSpans), 2).map((spanBytes) => {
        const span = fields(spanBytes);
        const hex = (field: number) =>
          ((first(span, field) as Buffer | undefined) ?? Buffer.alloc(0)).toString('hex');
        const status = fields((first(span, 15) as Buffer | undefined) ?? Buffer.alloc(0));
        return {
          traceId: hex(1),
          spanId: hex(2),
          parentSpanId: hex(4),
          name: String(first(span, 5)),
          kind: Number(first(span, 6) ?? 0),
          attributes: protobufAttributes(all(span, 9)),
          statusCode: Number(first(status, 3) ?? 0),
          resource: resourceAttributes,
        };
      }),
    );
  });
}

interface JsonKeyValue {
  key: string;
  value: {
    stringValue?: string;
    boolValue?: boolean;
    intValue?: string | number;
    doubleValue?: number;
  };
}

const jsonAttributes = (keyValues: JsonKeyValue[] = []): Record<string, Value> =>
  Object.fromEntries(
    keyValues.map(({ key, value }) => [
      key,
      value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue),
    ]),
  );

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: JsonKeyValue[];
  status?: { code?: number };
}

/** OTLP/JSON: the same messages in JSON, ids in hex (the specification's one exception). */
function jsonSpans(body: Buffer): Omit<ReceivedSpan, 'contentType'>[] {
  const request = JSON.parse(body.toString()) as {
    resourceSpans: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans: { spans: JsonSpan[] }[];
    }[];
  };
  return request.resourceSpans.flatMap(({ resource, scopeSpans }) =>
    scopeSpans.flatMap(({ spans }) =>
      spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: jsonAttributes(span.attributes),
        statusCode: span.status?.code ?? 0,
        resource: jsonAttributes(resource?.attributes),
      })),
    ),
  );
}

/**
 * An OTLP/HTTP trace receiver on loopback, as a collector's `otlp` receiver listens: POST
 * /v1/traces in `application/x-protobuf` or `application/json`, each decoded here.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly paths: string[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const receiver: OtlpReceiver = new OtlpReceiver(
      createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const contentType = request.headers['content-type'] ?? '';
          const body = Buffer.concat(chunks);
          receiver.paths.push(request.url ?? '');
          const spans = contentType.includes('json') ? jsonSpans(body) : protobufSpans(body);
          receiver.spans.push(...spans.map((span) => ({ ...span, contentType })));
          // An empty ExportTraceServiceResponse: everything accepted.
          response
            .writeHead(200, { 'Content-Type': contentType })
            .end(contentType.includes('json') ? '{}' : '');
        });
      }),
    );
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** `http://127.0.0.1:<port>`: OTEL_EXPORTER_OTLP_ENDPOINT, to which /v1/traces is added. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Waits until a received span satisfies `test`, and returns it. */
  async span(what: string, test: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
    await waitFor(what, () => Promise.resolve(this.spans.some(test)), 10_000, 20);
    return this.spans.find(test) as ReceivedSpan;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
