import express from 'express';
import { CHECKED_ON, takesEveryMethod, trustProxyTest } from './platform-internals';

/** Each private property of Express the service relies on, checked on a real application. */
describe(`The internals of Express ${CHECKED_ON.express}`, () => {
  it("Express's `'trust proxy fn'`: TRUST_PROXY as a test of a peer's address", () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    const trusted = trustProxyTest(app);
    expect([trusted('127.0.0.1', 0), trusted('203.0.113.7', 0)]).toEqual([true, false]);
    expect(() => trustProxyTest({ get: () => undefined })).toThrow("'trust proxy fn'");
  });

  it("Express's `methods._all`: a route that takes every method", () => {
    const app = express();
    const all = app.route('/all').all(() => undefined) as unknown as {
      methods: Record<string, boolean>;
    };
    const get = app.route('/get').get(() => undefined) as unknown as {
      methods: Record<string, boolean>;
    };
    expect([takesEveryMethod(all.methods), takesEveryMethod(get.methods)]).toEqual([true, false]);
  });
});
