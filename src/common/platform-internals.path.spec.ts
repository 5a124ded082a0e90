import express from 'express';
import request from 'supertest';
import { expressPath } from './platform-internals';

describe('expressPath', () => {
  it.each([
    ['/api/depreciate', '/api/depreciate'],
    ['/API/Depreciate/', '/api/depreciate'],
    ['/', '/'],
    ['/docs//', '/docs/'],
  ])('%s is %s', (path, expected) => expect(expressPath(path)).toBe(expected));

  it('agrees with Express on which spellings reach a route', async () => {
    const app = express().post('/api/depreciate', (_req, res) => res.send('routed'));
    for (const path of [
      '/api/depreciate',
      '/API/depreciate/',
      '/api/Depreciate',
      '/api/depreciate//',
    ]) {
      const reached = (await request(app).post(path)).text === 'routed';
      expect([path, reached]).toEqual([path, expressPath(path) === '/api/depreciate']);
    }
  });
});
