#!/usr/bin/env node
// What one client costs the daily counters: bytes of V8 heap per client in the memory store (the
// store of RATE_LIMIT_STORE=memory, and the fallback each instance keeps with redis), and bytes of
// Redis memory per client-day key. Run: npm run bench:memory (builds, then
// `node --expose-gc bench/memory-per-client.js`). CLIENTS=200000 sets the count.
'use strict';

const { spawn } = require('node:child_process');
const { createServer } = require('node:net');
const { normalizeIp } = require('@nestjs/throttler');
const { MemoryDailyLimitStorage } = require('../dist/rate-limit/memory-daily-limit.storage');

const CLIENTS = Number(process.env.CLIENTS ?? 200_000);

if (typeof global.gc !== 'function') {
  console.error('Run with node --expose-gc (npm run bench:memory does).');
  process.exit(1);
}

function heapUsed() {
  for (let i = 0; i < 3; i++) global.gc();
  return process.memoryUsage().heapUsed;
}

/** Keys as clientKey makes them: IPv4 as is, IPv6 as its /64. */
const ipv4 = (i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const ipv6 = (i) =>
  normalizeIp(`2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`);

function measureMemoryStore(name, key) {
  const time = { iso: '2026-11-21T09:30:00.000Z' };
  const storage = new MemoryDailyLimitStorage({ now: () => new Date(time.iso) });
  storage.hit('warm-up', 100);
  const before = heapUsed();
  for (let i = 0; i < CLIENTS; i++) storage.hit(key(i), 100);
  const during = heapUsed();
  time.iso = '2026-11-22T00:00:00.000Z';
  storage.hit('first of the new day', 100);
  const after = heapUsed();
  const perClient = (during - before) / CLIENTS;
  console.log(
    `memory store, ${name}: ${perClient.toFixed(0)} bytes per client ` +
      `(${CLIENTS} clients: +${mb(during - before)}); after midnight: ${mb(after - before)} held`,
  );
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function freePort() {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

async function measureRedis(name, key) {
  const Redis = require('ioredis');
  const { DAILY_HIT_LUA } = require('../dist/rate-limit/redis-client');
  const { redisKey } = require('../dist/rate-limit/redis-daily-limit.storage');
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const server = spawn('redis-server', args, { stdio: 'ignore' });
  const spawned = await new Promise((done) => {
    server.once('error', () => done(false));
    server.once('spawn', () => done(true));
  });
  if (!spawned) return console.log('redis: skipped (redis-server not on PATH)');
  // The service's script, without its 200 ms command timeout: batches here are large on purpose.
  const client = new Redis(`redis://127.0.0.1:${port}`, {
    scripts: { dailyHit: { lua: DAILY_HIT_LUA, numberOfKeys: 1 } },
  });
  client.on('error', () => undefined); // refused until redis-server listens; ioredis retries
  try {
    await new Promise((done) => client.once('ready', done));
    const used = async () => Number(/used_memory:(\d+)/.exec(await client.info('memory'))[1]);
    const before = await used();
    const now = Date.parse('2026-11-21T09:30:00.000Z');
    for (let start = 0; start < CLIENTS; start += 1_000) {
      const batch = [];
      for (let i = start; i < Math.min(start + 1_000, CLIENTS); i++) {
        batch.push(client.dailyHit(redisKey(key(i), now), 52_260));
      }
      await Promise.all(batch);
    }
    const perKey = ((await used()) - before) / CLIENTS;
    const sample = await client.memory('USAGE', redisKey(key(1), now));
    console.log(
      `redis, ${name}: ${perKey.toFixed(0)} bytes per client-day key ` +
        `(used_memory delta; MEMORY USAGE of one key: ${sample})`,
    );
  } finally {
    client.disconnect();
    server.kill();
  }
}

async function main() {
  console.log(`node ${process.version}, ${CLIENTS} distinct clients`);
  measureMemoryStore('IPv4 keys', ipv4);
  measureMemoryStore('IPv6 /64 keys', ipv6);
  await measureRedis('IPv4 keys', ipv4);
  await measureRedis('IPv6 /64 keys', ipv6);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
