import {
  BadRequestException,
  HttpException,
  NotFoundException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { toErrorBody } from './error-body';

const httpError = (status: number, type: string) =>
  Object.assign(new Error(type), { status, type });

describe('toErrorBody', () => {
  it.each([
    [new BadRequestException('Unexpected token } in JSON'), 400, 'Invalid input parameters'],
    [new BadRequestException({ any: 'object' }), 400, 'Invalid input parameters'],
    [new NotFoundException('Cannot GET /x'), 404, 'Cannot GET /x'],
    [
      new ThrottlerException('Rate limit exceeded. Maximum 7 requests per 24 hours.'),
      429,
      'Rate limit exceeded. Maximum 7 requests per 24 hours.',
    ],
    [new HttpException('I am a teapot', 418), 418, 'I am a teapot'],
    [new ServiceUnavailableException('Store down'), 503, 'Store down'],
    [new HttpException('secret detail', 500), 500, 'Internal server error'],
    [
      new HttpException('Content-Encoding must be one of gzip, deflate, br or identity', 415),
      415,
      'Content-Encoding must be one of gzip, deflate, br or identity',
    ],
    [
      new HttpException('Unsupported Media Type', 415),
      415,
      'Content-Type must be application/json',
    ],
  ])('maps %p to %p with its message', (exception, statusCode, message) => {
    expect(toErrorBody(exception)).toMatchObject({ statusCode, message });
  });

  it.each([
    [httpError(413, 'entity.too.large'), 413, 'Request body too large'],
    [httpError(415, 'charset.unsupported'), 415, 'Content-Type must be application/json'],
    [httpError(400, 'request.aborted'), 400, 'Invalid input parameters'],
    [httpError(431, 'whatever'), 431, 'Request Header Fields Too Large'],
  ])("maps body-parser's %p to %p", (exception, statusCode, message) => {
    expect(toErrorBody(exception)).toEqual({ statusCode, message, expected: true });
  });

  it.each([
    ['a long path', `Cannot GET /${'x'.repeat(16_000)}`, `Cannot GET /${'x'.repeat(187)}…`],
    // 😀 is two UTF-16 units, its first the 199th character: cut before it, not through it.
    ['a cut pair', `Cannot GET /${'x'.repeat(186)}😀😀`, `Cannot GET /${'x'.repeat(186)}…`],
    ['exactly 200 characters', `Cannot GET /${'x'.repeat(188)}`, `Cannot GET /${'x'.repeat(188)}`],
  ])('keeps a message to 200 characters: %s', (_, message, sent) => {
    expect(toErrorBody(new NotFoundException(message)).message).toBe(sent);
  });

  it.each([
    [new Error('database password is hunter2')],
    [new TypeError('x is undefined')],
    [Object.assign(new Error('stream.encoding.set'), { status: 500 })],
    ['a thrown string'],
    [undefined],
  ])('answers %p with the generic 500 and marks it for the log', (exception) => {
    expect(toErrorBody(exception)).toEqual({
      statusCode: 500,
      message: 'Internal server error',
      expected: false,
    });
  });

  it('logs a 500 HttpException, not a deliberate 503 nor a client error', () => {
    expect(toErrorBody(new HttpException('x', 500)).expected).toBe(false);
    expect(toErrorBody(new ServiceUnavailableException()).expected).toBe(true);
    expect(toErrorBody(new NotFoundException()).expected).toBe(true);
  });
});
