import { once } from 'node:events';
import { AddressInfo, createServer } from 'node:net';

/**
 * A port that was free a moment ago on `host`. Node's own modules only, so that the bench
 * (bench/processes.ts, compiled by bench/tsconfig.json) uses it too.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
