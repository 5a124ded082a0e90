import type { AnswerRecord } from '../common/answer-record';
import { recordingAppLogger } from '../testing/recording-logger';
import { requestLog } from './request-log';

const answer = (overrides: Partial<AnswerRecord> = {}): AnswerRecord => ({
  method: 'POST',
  path: '/api/depreciate',
  status: 200,
  completed: true,
  remoteAddress: '127.0.0.1',
  requestId: '0b6f4c1e-2f7d-4c55-9b0a-3f1e2d4c5b6a',
  elapsedMs: 2.6,
  ...overrides,
});

/** A sampled span's ids, as the OpenTelemetry log data model names them. */
function traceIds({ span }: AnswerRecord) {
  const ids = span?.spanContext();
  return ids && ids.traceFlags & 1 ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}

const spanWith = (traceFlags: number) =>
  ({
    spanContext: () => ({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags,
    }),
  }) as unknown as AnswerRecord['span'];

/** The line pino itself writes for the same answer (the fields as requestLog writes them). */
function pinoLine(record: AnswerRecord, level: 'info' | 'warn' | 'error', msg: string) {
  const { logger, output } = recordingAppLogger('info');
  const fields = {
    reqId: record.requestId,
    req: { method: record.method, path: record.path, remoteAddress: record.remoteAddress },
    ...traceIds(record),
    res: { statusCode: record.status },
    responseTime: Math.round(record.elapsedMs),
  };
  logger.pino[level](fields, msg);
  return output[0];
}

/** The time field differs when the two lines straddle a millisecond. */
const timeless = (line: string) => line.replace(/,"time":"[^"]*"/, '');

describe('requestLog', () => {
  it.each([
    ['an answer', answer(), 'info', 'request completed'],
    ['a 5xx', answer({ status: 500 }), 'error', 'request failed'],
    ['a 503', answer({ status: 503 }), 'warn', 'request completed'],
    ['a 505', answer({ status: 505, method: 'GET' }), 'info', 'request completed'],
    [
      'an abort before the status line',
      answer({ status: null, completed: false }),
      'info',
      'request aborted',
    ],
    [
      'no request id nor address',
      answer({ requestId: undefined, remoteAddress: undefined }),
      'info',
      'request completed',
    ],
    ['a sampled span with its ids', answer({ span: spanWith(1) }), 'info', 'request completed'],
    ['an unsampled span without them', answer({ span: spanWith(0) }), 'info', 'request completed'],
    ['a path to escape', answer({ path: '/a"b\\c\u0001\u00e9' }), 'info', 'request completed'],
  ] as const)('writes %s byte for byte as pino would', (what, record, level, msg) => {
    const { logger, output } = recordingAppLogger('info');
    requestLog(logger)(record);
    expect(output).toHaveLength(1);
    expect(timeless(output[0])).toBe(timeless(pinoLine(record, level, msg)));
    expect(output[0]).toMatch(/,"time":"\d{4}-\d\d-\d\dT[\d:.]+Z",/);
    expect(output[0].includes('"trace_id"')).toBe(
      Boolean(record.span && what.includes(' its ids')),
    );
  });

  it('writes nothing below the logger level', () => {
    const { logger, output } = recordingAppLogger('warn');
    requestLog(logger)(answer());
    expect(output).toEqual([]);
    requestLog(logger)(answer({ status: 503 }));
    expect(output).toHaveLength(1);
  });
});
