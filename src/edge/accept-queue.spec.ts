import fs from 'node:fs';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { acceptQueued, queuedInKernel } from './accept-queue';
import { listenOnLoopback } from '../testing/http';

/** Keeps the event loop from running for `ms`: what a loaded machine does to the server. */
function blockFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

/**
 * A real listener and the kernel's queue behind it: connections made while the event loop cannot
 * run wait there, and the server takes one per turn.
 */
describe('the accept queue', () => {
  let server: Server;
  let port: number;
  const accepted: Socket[] = [];
  const clients: Socket[] = [];
  const connectClient = (): Socket => {
    const client = connect({ port, host: '127.0.0.1' }).on('error', () => undefined);
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    accepted.length = clients.length = 0;
    server = createServer().on('connection', (socket: Socket) => accepted.push(socket));
    port = await listenOnLoopback(server);
  });
  afterEach(() => {
    for (const socket of [...clients, ...accepted]) socket.destroy();
    server.close();
  });

  it('queuedInKernel counts the connections the server has not taken yet', async () => {
    expect(queuedInKernel(server)).toBe(0);
    for (let i = 0; i < 3; i++) connectClient();
    // Node connects on the next tick; the kernel completes each handshake by itself.
    await new Promise(process.nextTick);
    blockFor(50);
    expect(queuedInKernel(server)).toBe(3);
    while (accepted.length < 3) await new Promise(setImmediate);
    expect(queuedInKernel(server)).toBe(0);
    server.close();
    expect(queuedInKernel(server)).toBeUndefined();
  });

  it('queuedInKernel reads the table only as far as the listener: the count is of that moment', async () => {
    // 400 connections, 800 lines after the listeners': more than one read of the table.
    for (let i = 0; i < 400; i++) connectClient();
    while (accepted.length < 400) await new Promise(setImmediate);
    const table = readFileSync('/proc/net/tcp', 'latin1');
    const reads = jest.spyOn(fs, 'readSync');
    try {
      expect(queuedInKernel(server)).toBe(0);
      const bytes = reads.mock.results.reduce((sum, { value }) => sum + (value as number), 0);
      expect(bytes).toBeGreaterThan(0);
      expect(bytes).toBeLessThan(table.length / 2);
    } finally {
      reads.mockRestore();
    }
  });

  it('acceptQueued does not resolve on connections that arrived while its last turn ran', async () => {
    // A connection whose bytes the server reads in the poll of the turn acceptQueued looks at:
    // while they are handled, three more clients connect (after that poll, so it saw none).
    const trigger = connectClient();
    while (accepted.length < 1) await new Promise(setImmediate);
    accepted[0].once('data', () => {
      for (let i = 0; i < 3; i++) connectClient();
      process.nextTick(() => blockFor(50));
    });
    // The bytes are sent in the same timers phase as acceptQueued's own timer, just before it.
    setTimeout(() => trigger.write('x'), 1);
    const queued = acceptQueued(server, Date.now() + 5_000);
    blockFor(50);
    await queued;
    expect(queuedInKernel(server)).toBe(0);
    expect(accepted).toHaveLength(4);
  });

  it('acceptQueued takes a queue one connection per turn, and resolves after the last', async () => {
    const queued = acceptQueued(server, Date.now() + 5_000);
    for (let i = 0; i < 20; i++) connectClient();
    await new Promise(process.nextTick);
    blockFor(50);
    await queued;
    expect(accepted).toHaveLength(20);
  });
});
