import express, { NextFunction, Request, Response } from 'express';
import {
  Answer,
  BODY_LIMIT_BYTES,
  calculate,
  errorAnswer,
  isJsonContentType,
  listenAddress,
  MESSAGES,
  notFound,
  TOO_LARGE,
  UNSUPPORTED,
} from './ceiling';
import { ROUTE } from './project';

/**
 * The Express ceiling: a bare Express 5 app (the one Nest runs on) doing the service's work with
 * hand-written validation. Like the service, it sends no X-Powered-By and computes no ETag.
 */
const send = (response: Response, answer: Answer) =>
  response.status(answer.status).json(answer.body);

const app = express();
app.disable('x-powered-by');
app.set('etag', false);

app.post(
  ROUTE,
  (request: Request, response: Response, next: NextFunction) => {
    if (isJsonContentType(request.headers['content-type'])) next();
    else send(response, UNSUPPORTED);
  },
  express.json({ limit: BODY_LIMIT_BYTES, type: 'application/json' }),
  (request: Request, response: Response) => send(response, calculate(request.body)),
);

app.use((request: Request, response: Response) => {
  send(response, notFound(request.method, request.path));
});

// body-parser's errors: malformed JSON (400), too large (413), an unsupported charset (415).
app.use(
  (error: { status?: number }, _request: Request, response: Response, _next: NextFunction) => {
    if (error.status === 413) send(response, TOO_LARGE);
    else if (error.status === 415) send(response, UNSUPPORTED);
    else if (error.status === 400) send(response, errorAnswer(400, MESSAGES.INVALID_INPUT_MESSAGE));
    else send(response, errorAnswer(500, MESSAGES.INTERNAL_ERROR_MESSAGE));
  },
);

const { port, host } = listenAddress();
app.listen(port, host);
