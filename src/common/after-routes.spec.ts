import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { AfterRoutes } from './after-routes';

@Controller()
class PingController {
  @Get('ping')
  ping() {
    return 'from the route';
  }
}

@Module({ controllers: [PingController], providers: [AfterRoutes] })
class PingModule {}

describe('AfterRoutes', () => {
  let app: NestExpressApplication;
  beforeEach(async () => {
    app = await NestFactory.create<NestExpressApplication>(PingModule, { logger: false });
  });
  afterEach(() => app.close());

  it("mounts its steps, in order, after the controllers' routes and before Nest's 404", async () => {
    const mounted: string[] = [];
    const steps = app.get(AfterRoutes);
    steps.add(() => {
      mounted.push('first');
      app.use('/ping', (_request: unknown, response: { end(text: string): void }) =>
        response.end('from the step'),
      );
    });
    steps.add(() => {
      mounted.push('second');
      app.use('/late', (_request: unknown, response: { end(text: string): void }) =>
        response.end('late'),
      );
    });
    expect(mounted).toEqual([]);
    await app.init();
    expect(mounted).toEqual(['first', 'second']);
    const server = app.getHttpServer();
    // The route answers first; a handler mounted the usual way, before init(), would have.
    await request(server).get('/ping').expect(200, 'from the route');
    await request(server).get('/late').expect(200, 'late');
    await request(server).get('/other').expect(404);
  });

  it('refuses a step once the routes are set up: it would never be reached', async () => {
    await app.init();
    expect(() => app.get(AfterRoutes).add(() => undefined)).toThrow(/after the application/);
  });
});
