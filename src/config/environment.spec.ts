import { nestLogLevels, validateEnvironment } from './environment';

describe('validateEnvironment', () => {
  it('gives the defaults of CONTRACT.md when nothing is set (or set empty)', () => {
    const expected = { PORT: 3000, HOST: '0.0.0.0', RATE_LIMIT_PER_DAY: 100, LOG_LEVEL: 'info' };
    expect({ ...validateEnvironment({}) }).toEqual(expected);
    expect({ ...validateEnvironment({ PORT: '', RATE_LIMIT_PER_DAY: '' }) }).toEqual(expected);
  });

  it('reads and types the variables it knows, and ignores the rest', () => {
    expect({
      ...validateEnvironment({
        PORT: '8080',
        HOST: '127.0.0.1',
        RATE_LIMIT_PER_DAY: '5',
        LOG_LEVEL: 'debug',
        PATH: '/usr/bin',
      }),
    }).toEqual({ PORT: 8080, HOST: '127.0.0.1', RATE_LIMIT_PER_DAY: 5, LOG_LEVEL: 'debug' });
  });

  it.each([
    [{ PORT: 'abc' }, 'Invalid configuration: PORT="abc" must be an integer from 0 to 65535'],
    [{ PORT: '65536' }, 'Invalid configuration: PORT="65536" must be an integer from 0 to 65535'],
    [{ PORT: '80.5' }, 'Invalid configuration: PORT="80.5" must be an integer from 0 to 65535'],
    [{ PORT: '-1' }, 'Invalid configuration: PORT="-1" must be an integer from 0 to 65535'],
    [{ HOST: 'a b' }, 'Invalid configuration: HOST="a b" must be an IP address or a host name'],
    [
      { RATE_LIMIT_PER_DAY: '0' },
      'Invalid configuration: RATE_LIMIT_PER_DAY="0" must be a whole number of requests, 1 or more',
    ],
    [
      { RATE_LIMIT_PER_DAY: '1e3' },
      'Invalid configuration: RATE_LIMIT_PER_DAY="1e3" must be a whole number of requests, 1 or more',
    ],
    [
      { LOG_LEVEL: 'loud' },
      'Invalid configuration: LOG_LEVEL="loud" must be one of silent, fatal, error, warn, info, debug, verbose',
    ],
  ])('refuses %p in one line naming the variable', (raw, message) => {
    expect(() => validateEnvironment(raw)).toThrow(new Error(message));
  });

  it("maps LOG_LEVEL to Nest's levels", () => {
    expect(nestLogLevels('silent')).toEqual([]);
    expect(nestLogLevels('info')).toEqual(['fatal', 'error', 'warn', 'log']);
    expect(nestLogLevels('verbose')).toEqual(['fatal', 'error', 'warn', 'log', 'debug', 'verbose']);
  });
});
