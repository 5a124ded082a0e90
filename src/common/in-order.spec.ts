import express from 'express';
import { createServer } from 'node:http';
import { inOrder } from './in-order';
import { listenOnLoopback } from '../testing/http';

type Next = (error?: unknown) => void;
/** The first two tests' middlewares never look at the request or the response. */
const [req, res] = [{}, {}] as [express.Request, express.Response];

describe('inOrder', () => {
  it('runs the middlewares in order, then hands on to what follows', () => {
    const seen: string[] = [];
    const mark = (name: string) => (_req: unknown, _res: unknown, next: Next) => {
      seen.push(name);
      next();
    };
    let after: unknown = 'not called';
    inOrder(mark('a'), mark('b'), mark('c'))(req, res, (error?: unknown) => (after = error));
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(after).toBeUndefined();
  });

  it('hands an error, or a value thrown at once or from an event, to next and runs none of the rest', () => {
    const failure = new Error('x');
    const rest = jest.fn();
    const cases: Array<(next: Next) => void> = [
      (next) => next(failure),
      () => {
        throw failure;
      },
    ];
    for (const first of cases) {
      const next = jest.fn();
      inOrder((_q: unknown, _s: unknown, n: Next) => first(n), rest)(req, res, next);
      expect(next.mock.calls).toEqual([[failure]]);
    }
    // A middleware that goes on later (the body reader, on the body's end): one that throws then.
    const next = jest.fn();
    let later: Next = () => undefined;
    const throwing = () => {
      throw failure;
    };
    inOrder((_q: unknown, _s: unknown, n: Next) => (later = n), throwing, rest)(req, res, next);
    later();
    expect(next.mock.calls).toEqual([[failure]]);
    expect(rest).not.toHaveBeenCalled();
  });

  it('answers as the same middlewares mounted one by one on Express, errors included', async () => {
    const answers = async (mount: (app: express.Express) => void): Promise<string[]> => {
      const app = express();
      mount(app);
      app.use((_req: express.Request, res: express.Response) => void res.send('route'));
      app.use((error: Error, _req: express.Request, res: express.Response, _next: Next) => {
        res.status(500).send(`error ${error.message}`);
      });
      const server = createServer(app);
      const port = await listenOnLoopback(server);
      const texts: string[] = [];
      for (const path of ['/', '/stop', '/fail', '/throw']) {
        const answer = await fetch(`http://127.0.0.1:${port}${path}`);
        texts.push(`${answer.status} ${answer.headers.get('x-a')} ${await answer.text()}`);
      }
      server.close();
      return texts;
    };
    const a = (_req: express.Request, res: express.Response, next: Next) => {
      res.setHeader('X-A', 'a');
      next();
    };
    const b = (req: express.Request, res: express.Response, next: Next) => {
      if (req.path === '/stop') return void res.send('stopped');
      if (req.path === '/fail') return next(new Error('failed'));
      if (req.path === '/throw') throw new Error('thrown');
      next();
    };
    const oneByOne = await answers((app) => {
      app.use(a);
      app.use(b);
    });
    expect(oneByOne).toEqual([
      '200 a route',
      '200 a stopped',
      '500 a error failed',
      '500 a error thrown',
    ]);
    expect(await answers((app) => app.use(inOrder(a, b)))).toEqual(oneByOne);
  });
});
