import { ArgumentsHost, BadRequestException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AllExceptionsFilter } from './all-exceptions.filter';

describe('AllExceptionsFilter', () => {
  const response = { marker: 'response' };
  const host = {
    switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({ id: 'req-7' }) }),
  } as unknown as ArgumentsHost;
  let adapter: { reply: jest.Mock; end: jest.Mock; isHeadersSent: jest.Mock };
  let filter: AllExceptionsFilter;
  let logError: jest.SpyInstance;

  beforeEach(() => {
    adapter = { reply: jest.fn(), end: jest.fn(), isHeadersSent: jest.fn(() => false) };
    filter = new AllExceptionsFilter({ httpAdapter: adapter } as unknown as HttpAdapterHost);
    logError = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => logError.mockRestore());

  it('replies with exactly { statusCode, message } and logs nothing for a client error', () => {
    filter.catch(new BadRequestException(['purchaseYear must be an integer']), host);
    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      { statusCode: 400, message: 'Invalid input parameters' },
      400,
    );
    expect(logError).not.toHaveBeenCalled();
  });

  it('logs an unexpected error (its stack with it) and the request id, and sends only the generic message', () => {
    const error = new Error('connection string postgres://u:p@h/db');
    filter.catch(error, host);
    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      { statusCode: 500, message: 'Internal server error' },
      500,
    );
    expect(logError).toHaveBeenCalledWith({ reqId: 'req-7', err: error, msg: error.message });
  });

  it('logs a thrown value that is not an Error as its text', () => {
    filter.catch('plain string', host);
    expect(logError).toHaveBeenCalledWith({ reqId: 'req-7', msg: 'plain string' });
  });

  it('ends a response whose headers are already sent instead of answering twice', () => {
    adapter.isHeadersSent.mockReturnValue(true);
    filter.catch(new Error('late'), host);
    expect(adapter.reply).not.toHaveBeenCalled();
    expect(adapter.end).toHaveBeenCalledWith(response);
  });
});
