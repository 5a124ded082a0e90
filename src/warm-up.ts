import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { once } from 'node:events';
import { Agent, request, type RequestOptions, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorText } from './common/error-text';
import { WarmUpState } from './common/warm-up-state';
import { VEHICLE_TYPES } from './depreciation/strategies/rates';

/** The README's request, each vehicle type in turn. */
const BODIES = VEHICLE_TYPES.map((vehicleType) =>
  JSON.stringify({ purchaseYear: 2020, purchasePrice: 25000, vehicleType, currentMileage: 50000 }),
);

const JSON_POST = {
  method: 'POST',
  path: '/api/depreciate',
  headers: { 'Content-Type': 'application/json' },
};

const post = (options: RequestOptions, body: string) =>
  new Promise((resolve, reject) => {
    request(options, (answer) => answer.resume().on('end', resolve).on('error', reject))
      .on('error', reject)
      .end(body);
  });

/**
 * Before the API listens: it answers its own requests for `ms` on a loopback port, so the first
 * client meets compiled code (docs/operations.md, "The warm-up"). None is counted, logged,
 * measured or traced (WarmUpState); a failure ends the warm-up, never the start.
 */
export async function warmUp(app: NestExpressApplication, ms: number): Promise<void> {
  if (ms === 0) return;
  await app.init();
  const server: Server = app.getHttpServer();
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  app.get(WarmUpState).running = true;
  try {
    await once(server.listen(0, '127.0.0.1'), 'listening');
    const options = { ...JSON_POST, agent, port: (server.address() as AddressInfo).port };
    // Monotonic: a wall clock that steps back, or stands still, never stretches the warm-up.
    const end = performance.now() + ms;
    let sent = 0;
    const loop = async () => {
      while (performance.now() < end) await post(options, BODIES[sent++ % BODIES.length]);
    };
    // A connection's failure ends its loop only.
    await Promise.allSettled(Array.from({ length: agent.maxSockets }, loop));
    Logger.log(`Warmed up: sent itself ${sent} requests in ${ms} ms`, 'WarmUp');
  } catch (error) {
    Logger.warn(`No warm-up: ${errorText(error)}`, 'WarmUp');
  } finally {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    app.get(WarmUpState).running = false;
  }
}
