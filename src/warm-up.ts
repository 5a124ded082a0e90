import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { errorText } from './common/error-text';
import { WarmUpState } from './common/warm-up-state';
import { VEHICLE_TYPES } from './depreciation/strategies/rates';
import { ShutdownState } from './health/health.controller';

/** The README's request, each vehicle type in turn, each on a connection of its own. */
const REQUESTS = VEHICLE_TYPES.map((vehicleType) => {
  const body = `{"purchaseYear":2020,"purchasePrice":25000,"vehicleType":"${vehicleType}","currentMileage":50000}`;
  const head = `POST /api/depreciate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n`;
  return `${head}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
});

/**
 * Raw bytes, not Node's HTTP client: the client's share of Node's HTTP code (OutgoingMessage,
 * IncomingMessage) would leave the server's hot path polymorphic (bench/README.md, "The warm-up").
 */
const post = (port: number, bytes: string) =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('error', reject).on('close', resolve).resume();
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
  app.get(WarmUpState).running = true;
  try {
    await once(server.listen(0, '127.0.0.1'), 'listening');
    const { port } = server.address() as AddressInfo;
    // Monotonic: a wall clock that steps back, or stands still, never stretches the warm-up.
    const end = performance.now() + ms;
    let sent = 0;
    const more = () => performance.now() < end && !app.get(ShutdownState).draining;
    const loop = async () => {
      while (more()) await post(port, REQUESTS[sent++ % REQUESTS.length]);
    };
    // A connection's failure ends its loop only.
    await Promise.allSettled(Array.from({ length: 8 }, loop));
    Logger.log(`Warmed up: sent itself ${sent} requests in ${ms} ms`, 'WarmUp');
  } catch (error) {
    Logger.warn(`No warm-up: ${errorText(error)}`, 'WarmUp');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    app.get(WarmUpState).running = false;
  }
}
