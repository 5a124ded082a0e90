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

const { get } = require('node:http');
const { mkdtempSync, rmSync, writeFileSync, existsSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const MAIN = resolve(__dirname, '../dist/main.js');
// The project's process runner (src/testing/processes.ts), kept out of the production build and
// built by `npm run build:tools` (npm run cluster does both).
const RUNNER = resolve(__dirname, '../dist-tools/src/testing/processes.js');
if (!existsSync(MAIN) || !existsSync(RUNNER)) {
  console.error(`${MAIN} or ${RUNNER} is missing: run npm run cluster (it builds both)`);
  process.exit(1);
}
const { freePort, RunningProcess, serverNodeFlags } = require(RUNNER);
// Node's flags as `npm start` gives them (--disable-sigusr1: no inspector on SIGUSR1).
const NODE_FLAGS = serverNodeFlags(resolve(__dirname, '../package.json'));
const HOST = '127.0.0.1';
// The instances are reachable directly on loopback too, so they trust nginx's address, not a hop
// count: with TRUST_PROXY=1 any local client could name itself in X-Forwarded-For.
const PROXY_ADDRESS = '127.0.0.2';
const children = [];
let stopping = false;

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

/** Starts a program whose output goes to this terminal, prefixed with its name. */
function start(name, command, args, env) {
  // Own process group: Ctrl-C reaches only this script, which then stops everything in order.
  const child = RunningProcess.start(command, args, {
    name,
    env: { ...process.env, ...env },
    stdout: 'echo',
    stderr: 'echo',
    detached: true,
  });
  child.exited.then(({ code, signal }) => stop(`${name} exited (${signal ?? `code ${code}`})`));
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
  // SIGTERM to each, SIGKILL to any still running 5 s later.
  void Promise.all(children.map((child) => child.stop(5_000))).then(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    process.exit(reason ? 1 : 0);
  });
}

async function main() {
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
  await redis.untilListening(redisPort, HOST, 10_000);

  const ports = await Promise.all(Array.from({ length: count }, freePort));
  await Promise.all(
    ports.map((instancePort, index) => {
      const instance = start(`instance-${index + 1}`, process.execPath, [...NODE_FLAGS, MAIN], {
        HOST,
        PORT: String(instancePort),
        // Each instance's /metrics on a port of its own (logged at start-up).
        METRICS_PORT: '0',
        RATE_LIMIT_STORE: 'redis',
        REDIS_URL: `redis://${HOST}:${redisPort}`,
        TRUST_PROXY: PROXY_ADDRESS,
      });
      // Traffic only once the instance counts in Redis.
      return instance.until(
        `${instance.name} to count in Redis`,
        () => ready(instancePort),
        10_000,
      );
    }),
  );

  writeFileSync(join(dir, 'nginx.conf'), nginxConfig(dir, port, ports));
  const nginxArgs = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr', '-g', 'daemon off;'];
  const nginx = start('nginx', 'nginx', nginxArgs);
  await nginx.untilListening(port, HOST, 10_000);

  const instances = ports.map((instancePort) => `${HOST}:${instancePort}`).join(', ');
  console.log(
    `cluster: ready at http://${HOST}:${port} (nginx -> ${instances}; Redis ${HOST}:${redisPort})`,
  );
}

// Should this script die abruptly, the runner takes the detached children with it (SIGKILL).
process.on('SIGINT', () => stop());
process.on('SIGTERM', () => stop());
// A program that did not come up is stopped by the runner, whose exit stops the rest: say why.
main().catch((error) => {
  console.error(`cluster: ${error.message.trim()}`);
  stop('start-up failed');
});
