import { ArgumentsHost, BadRequestException, Logger } from '@nestjs/common';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { ErrorResponses } from './error-responses';

/** What the filter wrote on a response: status, headers and body, as a client would read them. */
function fakeResponse() {
  const written = { status: 0, headers: {} as Record<string, unknown>, body: '' };
  const response = {
    req: { method: 'POST', complete: true, headers: {} },
    socket: null,
    headersSent: false,
    set statusCode(status: number) {
      written.status = status;
    },
    hasHeader: (name: string) => name.toLowerCase() in written.headers,
    setHeader: (name: string, value: unknown) => (written.headers[name.toLowerCase()] = value),
    end: jest.fn((body?: Buffer) => (written.body = String(body))),
  };
  return { response, written };
}

describe('AllExceptionsFilter', () => {
  let { response, written } = fakeResponse();
  const host = {
    switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({ id: 'req-7' }) }),
  } as unknown as ArgumentsHost;
  let filter: AllExceptionsFilter;
  let logError: jest.SpyInstance;

  beforeEach(() => {
    ({ response, written } = fakeResponse());
    filter = new AllExceptionsFilter(new ErrorResponses([]));
    logError = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => logError.mockRestore());

  it('replies with exactly { statusCode, message } and logs nothing for a client error', () => {
    filter.catch(new BadRequestException(['purchaseYear must be an integer']), host);
    expect(written).toEqual({
      status: 400,
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': 55 },
      body: '{"statusCode":400,"message":"Invalid input parameters"}',
    });
    expect(logError).not.toHaveBeenCalled();
  });

  it('logs an unexpected error (its stack with it) and the request id, and sends only the generic message', () => {
    const error = new Error('connection string postgres://u:p@h/db');
    filter.catch(error, host);
    expect(written).toMatchObject({
      status: 500,
      body: '{"statusCode":500,"message":"Internal server error"}',
    });
    expect(logError).toHaveBeenCalledWith({ reqId: 'req-7', err: error, msg: error.message });
  });

  it('answers a 400 for a path whose percent-encoding is malformed as the unknown path it is', () => {
    const on = (originalUrl: string) =>
      ({
        switchToHttp: () => ({
          getResponse: () => response,
          getRequest: () => ({ method: 'GET', url: '/%', originalUrl }),
        }),
      }) as unknown as ArgumentsHost;
    // What Nest makes of the URIError Express's router raises for `/assets/:name`.
    filter.catch(new BadRequestException("Failed to decode param '%'"), on('/assets/%'));
    expect(written).toMatchObject({
      status: 404,
      body: '{"statusCode":404,"message":"Cannot GET /assets/%"}',
    });
    // A malformed query, or a path that decodes, leaves a 400 a 400.
    for (const url of ['/api/depreciate?y=%zz', '/assets/%41']) {
      ({ response, written } = fakeResponse());
      filter.catch(new BadRequestException(), on(url));
      expect(written.status).toBe(400);
    }
    expect(logError).not.toHaveBeenCalled();
  });

  it('logs a thrown value that is not an Error as its text', () => {
    filter.catch('plain string', host);
    expect(logError).toHaveBeenCalledWith({ reqId: 'req-7', msg: 'plain string' });
  });

  it('ends a response whose headers are already sent instead of answering twice', () => {
    response.headersSent = true;
    filter.catch(new Error('late'), host);
    expect(written.status).toBe(0);
    expect(response.end).toHaveBeenCalledWith();
  });

  it('neither answers nor logs for a response the edge has already answered', () => {
    Object.assign(response, { writableEnded: true });
    filter.catch(new Error('Cannot set headers after they are sent to the client'), host);
    expect(written.status).toBe(0);
    expect(logError).not.toHaveBeenCalled();
    expect(response.end).not.toHaveBeenCalled();
  });
});
