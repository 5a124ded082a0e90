import { asError, errorText, loggedError } from './error-text';

const withStack = (error: Error, stack: string | undefined): Error =>
  Object.assign(error, { stack });

describe('errorText', () => {
  it.each([
    ['an Error, its message', new Error('connect ECONNREFUSED'), 'connect ECONNREFUSED'],
    ['an Error without a message, its name', new RangeError(), 'RangeError'],
    ['a string, as it is', 'timed out', 'timed out'],
    ['a number', 42, '42'],
    ['undefined', undefined, 'undefined'],
    ['an object', { code: 'EPIPE' }, '[object Object]'],
  ])('gives %s as the message', (_case, error, expected) => {
    expect(errorText(error)).toBe(expected);
  });

  it.each([
    [
      'an Error, its stack',
      withStack(new Error('x'), 'Error: x\n    at here'),
      'Error: x\n    at here',
    ],
    [
      'an Error without a stack, name and message',
      withStack(new TypeError('y'), undefined),
      'TypeError: y',
    ],
    ['a string, as it is', 'timed out', 'timed out'],
  ])('gives %s with the stack', (_case, error, expected) => {
    expect(errorText(error, 'stack')).toBe(expected);
  });
});

describe('asError and loggedError', () => {
  it('keeps an Error, and wraps anything else in one', () => {
    const error = new RangeError('out');
    expect(asError(error)).toBe(error);
    expect(asError('refused')).toEqual(new Error('refused'));
  });

  it('logs an Error as err with its one-line text, anything else as the text alone', () => {
    const error = new TypeError('');
    expect(loggedError(error)).toEqual({ err: error, msg: 'TypeError' });
    expect(loggedError(42)).toEqual({ msg: '42' });
  });
});
