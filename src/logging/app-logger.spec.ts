import { Logger } from '@nestjs/common';
import { hostname } from 'node:os';
import type { AppLogLevel } from '../config/environment';
import { recordingAppLogger } from '../testing/recording-logger';
import type { AppLogger } from './app-logger';

describe('AppLogger', () => {
  let recorded: ReturnType<typeof recordingAppLogger>;
  const lines = () => recorded.lines();
  const capture = (level: AppLogLevel): AppLogger => {
    recorded = recordingAppLogger(level);
    return recorded.logger;
  };

  it('writes a Nest line as JSON: level label, ISO time, pid, hostname, context, msg', () => {
    capture('info').log('Nest application successfully started', 'NestApplication');
    expect(lines()).toEqual([
      {
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        pid: process.pid,
        hostname: hostname(),
        context: 'NestApplication',
        msg: 'Nest application successfully started',
      },
    ]);
  });

  it('stamps each line with the time of its millisecond', () => {
    const now = jest.spyOn(Date, 'now');
    try {
      const logger = capture('info');
      for (const at of [
        Date.UTC(2026, 10, 24, 12),
        Date.UTC(2026, 10, 24, 12),
        Date.UTC(2026, 10, 24, 12, 0, 0, 1),
      ]) {
        now.mockReturnValue(at);
        logger.log('a line');
      }
    } finally {
      now.mockRestore();
    }
    expect(lines().map((line) => line.time)).toEqual([
      '2026-11-24T12:00:00.000Z',
      '2026-11-24T12:00:00.000Z',
      '2026-11-24T12:00:00.001Z',
    ]);
  });

  it('takes the calls of a Nest Logger with a context, the way Nest makes them', () => {
    const logger = new Logger('DailyLimit');
    Logger.overrideLogger(capture('debug'));
    try {
      logger.warn('Redis unavailable');
      logger.debug('detail');
      logger.error('failed', 'Error: failed\n    at here');
    } finally {
      Logger.overrideLogger(false);
    }
    expect(lines()).toMatchObject([
      { level: 'warn', context: 'DailyLimit', msg: 'Redis unavailable' },
      { level: 'debug', context: 'DailyLimit', msg: 'detail' },
      {
        level: 'error',
        context: 'DailyLimit',
        msg: 'failed',
        err: { type: 'Error', message: 'failed', stack: 'Error: failed\n    at here' },
      },
    ]);
  });

  it('takes a lone stack after an error message for the stack, not for a context', () => {
    Logger.overrideLogger(capture('info'));
    try {
      Logger.error('failed', 'Error: failed\n    at here');
    } finally {
      Logger.overrideLogger(false);
    }
    expect(lines()).toMatchObject([
      { level: 'error', msg: 'failed', err: { stack: 'Error: failed\n    at here' } },
    ]);
    expect(lines()[0]).not.toHaveProperty('context');
  });

  it('logs an object message as fields of the line, an Error in it with type, message and stack', () => {
    const error = new TypeError('kaboom');
    capture('info').error({ reqId: 'req-1', err: error, msg: 'kaboom' }, undefined, 'Handler');
    expect(lines()).toMatchObject([
      {
        level: 'error',
        context: 'Handler',
        reqId: 'req-1',
        msg: 'kaboom',
        err: { type: 'TypeError', message: 'kaboom', stack: error.stack },
      },
    ]);
  });

  it('logs an Error given as the message as err, with its message as msg', () => {
    capture('info').error(new RangeError('out of range'));
    expect(lines()).toMatchObject([
      { level: 'error', msg: 'out of range', err: { type: 'RangeError', message: 'out of range' } },
    ]);
    expect(lines()[0]).not.toHaveProperty('context');
  });

  it('writes a message that is not a string as its inspected text, on one line', () => {
    capture('info').log(['a', 1n, { b: null }]);
    expect(lines()).toMatchObject([{ msg: "[ 'a', 1n, { b: null } ]" }]);
  });

  it('maps verbose to pino trace, and leaves out every line below its level', () => {
    const logger = capture('warn');
    logger.log('info');
    logger.debug('debug');
    logger.verbose('trace');
    logger.warn('warn');
    logger.fatal('fatal');
    expect(lines().map((line) => line.level)).toEqual(['warn', 'fatal']);

    const verbose = capture('verbose');
    verbose.verbose('trace');
    expect(verbose.pino.level).toBe('trace');
    expect(lines()).toMatchObject([{ level: 'trace', msg: 'trace' }]);
  });
});
