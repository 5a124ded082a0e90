import type { AnswerRecord } from '../common/answer-record';
import { Tracing } from './tracing';

/** A recording span: what endSpans and clientSpan set on it. */
function fakeSpan() {
  return {
    attributes: {} as Record<string, unknown>,
    name: '',
    status: undefined as unknown,
    ended: false,
    isRecording: () => true,
    setAttribute(key: string, value: unknown) {
      this.attributes[key] = value;
    },
    updateName(name: string) {
      this.name = name;
    },
    setStatus(status: unknown) {
      this.status = status;
    },
    end() {
      this.ended = true;
    },
  };
}

type Fake = ReturnType<typeof fakeSpan>;
const ERROR = 2;

function tracingWith(spans: Fake[], inRecordedRequest = true): Tracing {
  const active = { isRecording: () => inRecordedRequest };
  const trace = { getActiveSpan: () => active };
  const api = { SpanStatusCode: { ERROR }, SpanKind: { CLIENT: 3 }, trace };
  const tracer = { startSpan: () => spans[spans.push(fakeSpan()) - 1] };
  const sdk = { api, tracer, provider: { shutdown: () => Promise.resolve() } };
  return new (Tracing as unknown as new (sdk: unknown) => Tracing)(sdk);
}

const answer = (span: Fake, status: number | null, route?: unknown): AnswerRecord =>
  ({
    method: 'POST',
    path: '/x',
    route,
    status,
    completed: status !== null,
    elapsedMs: 1,
    span,
  }) as unknown as AnswerRecord;

describe('Tracing', () => {
  it('is a pass-through when off', async () => {
    const off = await Tracing.start(undefined);
    const listener = () => undefined;
    expect(off.on).toBe(false);
    expect(off.serverSpans(listener)).toBe(listener);
    await expect(off.clientSpan('x', {}, () => Promise.resolve(7))).resolves.toBe(7);
  });

  it("ends a request's span with its route and status; a 5xx or a status never sent is an error", () => {
    const tracing = tracingWith([]);
    const route = { path: '/api/depreciate', methods: { post: true } };
    const ok = fakeSpan();
    tracing.endSpans(answer(ok, 200, route));
    expect(ok).toMatchObject({ ended: true, name: 'POST /api/depreciate', status: undefined });
    expect(ok.attributes).toEqual({
      'http.route': '/api/depreciate',
      'http.response.status_code': 200,
    });
    const failed = fakeSpan();
    tracing.endSpans(answer(failed, 503));
    expect(failed).toMatchObject({ ended: true, name: '', status: { code: ERROR } });
    expect(failed.attributes).toEqual({ 'http.response.status_code': 503, 'error.type': '503' });
    const aborted = fakeSpan();
    tracing.endSpans(answer(aborted, null));
    expect(aborted).toMatchObject({
      status: { code: ERROR },
      attributes: { 'error.type': 'aborted' },
    });
  });

  it('records a failed client call as an error, and ends its span either way', async () => {
    const spans: Fake[] = [];
    const tracing = tracingWith(spans);
    await expect(tracing.clientSpan('EVALSHA', {}, () => Promise.resolve('ok'))).resolves.toBe(
      'ok',
    );
    const timeout = Object.assign(new Error('late'), { name: 'TimeoutError' });
    await expect(tracing.clientSpan('EVALSHA', {}, () => Promise.reject(timeout))).rejects.toBe(
      timeout,
    );
    expect(spans.map((span) => [span.ended, span.status])).toEqual([
      [true, undefined],
      [true, { code: ERROR }],
    ]);
    expect(spans[1].attributes['error.type']).toBe('TimeoutError');
  });

  it('makes no client span outside a recorded request', async () => {
    const spans: Fake[] = [];
    const tracing = tracingWith(spans, false);
    await expect(tracing.clientSpan('EVALSHA', {}, () => Promise.resolve(1))).resolves.toBe(1);
    expect(spans).toEqual([]);
  });
});
