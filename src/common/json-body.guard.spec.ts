import { ExecutionContext, UnsupportedMediaTypeException } from '@nestjs/common';
import { errorBodyOf } from '../testing/error-body-of';
import { isJsonContentType } from './json-body';
import { JsonContentTypeGuard } from './json-body';

describe('JSON content type', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON;charset=UTF-8', true],
    [' application/json ', true],
    ['text/plain', false],
    ['application/x-www-form-urlencoded', false],
    ['application/jsonp', false],
    ['application/json; charset=latin1', false],
    ['application/json; charset=utf-16', false],
    ['application/json;charset="UTF-8"', true],
    ['application/json; version=2; charset=utf-8', true],
    ['application/json; charset=utf-8; charset=latin1', false],
    ['application/vnd.api+json', false],
    ['', false],
    [undefined, false],
  ])('%p is JSON: %p', (header, expected) => {
    expect(isJsonContentType(header)).toBe(expected);
  });

  it('refuses other types with 415 and the contract message', () => {
    const context = {
      switchToHttp: () => ({ getRequest: () => ({ headers: { 'content-type': 'text/plain' } }) }),
    } as unknown as ExecutionContext;
    expect(errorBodyOf(() => new JsonContentTypeGuard().canActivate(context))).toEqual({
      thrown: UnsupportedMediaTypeException.name,
      statusCode: 415,
      message: 'Content-Type must be application/json',
      expected: true,
    });
  });
});
