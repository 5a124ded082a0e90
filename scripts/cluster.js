#!/usr/bin/env node
// A local multi-instance setup on loopback: redis-server, CLUSTER_INSTANCES built servers sharing
// their daily counters in it, and nginx in front (round robin), connecting to them from an address
// of its own that they trust (TRUST_PROXY=127.0.0.2), so each instance sees the client nginx saw.
// `npm run cluster` builds first, then runs this; Ctrl-C stops everything. Needs redis-server and
// nginx on PATH (Debian: apt-get install redis-server nginx).
//
//   CLUSTER_PORT       nginx's port on 127.0.0.1 (default 8080; 0 picks a free one)
//   CLUSTER_INSTANCES  how many instances (default 2)
//   RATE_LIMIT_PER_DAY, LOG_LEVEL  passed to the instances
'use strict';

const { spawn } = require('node:child_process');
const { get } = require('node:http');
const { mkdtempSync, rmSync, writeFileSync, existsSync } = require('node:fs');
const { createServer, connect } = require('node:net');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const MAIN = resolve(__dirname, '../dist/main.js');
const HOST = '127.0.0.1';
// The instances are reachable directly on loopback too, so they trust nginx's address, not a hop
// count: with TRUST_PROXY=1 any local client could name itself in X-Forwarded-For.
const PROXY_ADDRESS = '127.0.0.2';
const children = [];
let stopping = false;

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer().once('error', fail);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

function accepts(port) {
  return new Promise((done) => {
    const socket = connect({ host: HOST, port });
    socket.once('connect', () => {
      socket.end();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/**
 * Answers whether the instance on `port` counts in Redis: GET /health says `ok` (readiness alone
 * would not do: an instance counting in its own memory is ready too).
 */
function ready(port) {
  return new Promise((done) => {
    get({ host: HOST, port, path: '/health', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk) => (body += chunk));
      res.on('end', () => done(res.statusCode === 200 && body.includes('"status":"ok"')));
    }).once('error', () => done(false));
  });
}

async function waitUntil(name, what, child, check) {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (code ${child.exitCode})`);
    if (await check()) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${name} was not ${what} within 10 s`);
}

const waitForPort = (name, port, child) =>
  waitUntil(name, `listening on ${HOST}:${port}`, child, () => accepts(port));

/** Starts a program whose output goes to this terminal, prefixed with its name. */
function start(name, command, args, env) {
  // Own process group: Ctrl-C reaches only this script, which then stops everything in order.
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: 'pipe',
    detached: true,
  });
  const prefix = (chunk) =>
    chunk
      .toString()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => `[${name}] ${line}\n`)
      .join('');
  child.stdout.on('data', (chunk) => process.stdout.write(prefix(chunk)));
  child.stderr.on('data', (chunk) => process.stderr.write(prefix(chunk)));
  child.on('error', (error) => stop(`${name}: ${error.message}`));
  child.on('exit', (code, signal) => stop(`${name} exited (${signal ?? `code ${code}`})`));
  children.push(child);
  return child;
}

function nginxConfig(dir, port, upstreams) {
  const servers = upstreams.map((upstream) => `    server ${HOST}:${upstream};`).join('\n');
  return `worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream depreciation {
${servers}
    keepalive 16;
  }
  server {
    listen ${HOST}:${port};
    location / {
      proxy_pass http://depreciation;
      proxy_bind ${PROXY_ADDRESS};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      # Appends the client's address; the instances trust only connections from proxy_bind's
      # address, so whatever a client writes in its own X-Forwarded-For cannot name another client.
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }
  }
}
`;
}

let dir;
function stop(reason) {
  if (stopping) return;
  stopping = true;
  if (reason) console.error(`cluster: stopping: ${reason}`);
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  const exit = () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    process.exit(reason ? 1 : 0);
  };
  const timer = setTimeout(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    exit();
  }, 5_000);
  Promise.all(
    children.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? null
        : new Promise((done) => child.once('exit', done)),
    ),
  ).then(() => {
    clearTimeout(timer);
    exit();
  });
}

async function main() {
  if (!existsSync(MAIN))
    throw new Error(`${MAIN} is missing: run npm run build (npm run cluster does)`);
  const count = Number(process.env.CLUSTER_INSTANCES ?? 2);
  if (!Number.isInteger(count) || count < 1) throw new Error('CLUSTER_INSTANCES must be 1 or more');
  const requested = Number(process.env.CLUSTER_PORT ?? 8080);
  const port = requested === 0 ? await freePort() : requested;
  dir = mkdtempSync(join(tmpdir(), 'depreciation-cluster-'));

  const redisPort = await freePort();
  const redisArgs = [
    '--port',
    String(redisPort),
    '--bind',
    HOST,
    '--save',
    '',
    '--appendonly',
    'no',
  ];
  const redis = start('redis', 'redis-server', [...redisArgs, '--dir', dir]);
  await waitForPort('redis-server', redisPort, redis);

  const ports = await Promise.all(Array.from({ length: count }, freePort));
  await Promise.all(
    ports.map((instancePort, index) => {
      const instance = start(`instance-${index + 1}`, process.execPath, [MAIN], {
        HOST,
        PORT: String(instancePort),
        // Each instance's /metrics on a port of its own (logged at start-up).
        METRICS_PORT: '0',
        RATE_LIMIT_STORE: 'redis',
        REDIS_URL: `redis://${HOST}:${redisPort}`,
        TRUST_PROXY: PROXY_ADDRESS,
      });
      // Traffic only once the instance counts in Redis.
      return waitUntil(`instance-${index + 1}`, 'ready', instance, () => ready(instancePort));
    }),
  );

  writeFileSync(join(dir, 'nginx.conf'), nginxConfig(dir, port, ports));
  const nginxArgs = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr', '-g', 'daemon off;'];
  const nginx = start('nginx', 'nginx', nginxArgs);
  await waitForPort('nginx', port, nginx);

  const instances = ports.map((instancePort) => `${HOST}:${instancePort}`).join(', ');
  console.log(
    `cluster: ready at http://${HOST}:${port} (nginx -> ${instances}; Redis ${HOST}:${redisPort})`,
  );
}

process.on('SIGINT', () => stop());
process.on('SIGTERM', () => stop());
// Should this script die abruptly, take the detached children with it.
process.on('exit', () =>
  children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')),
);
main().catch((error) => stop(error.message));
