import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { OUT_DIR } from './project';
import { freePort, pinned, Running, SERVER_CPU, startProcess } from './processes';

/** Redis runs on the server's core by default: the whole server side shares one core. */
const REDIS_CPU = process.env.BENCH_REDIS_CPU ?? SERVER_CPU;

export const HAS_REDIS = spawnSync('redis-server', ['--version']).status === 0;

/** A throw-away redis-server on a free loopback port: no persistence, nothing kept. */
export async function startRedis(): Promise<Running> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const command = pinned(REDIS_CPU, ['redis-server', ...args, '--dir', OUT_DIR]);
  return startProcess('redis-server', command, {}, port);
}

/** Sends one command and resolves with the raw reply (small replies only). */
function command(port: number, ...parts: string[]): Promise<string> {
  const request = `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let reply = '';
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      const header = /^\$(\d+)\r\n/.exec(reply);
      if (!header || reply.length >= header[0].length + Number(header[1])) {
        socket.end();
        resolve(reply);
      }
    });
    socket.on('error', reject);
  });
}

/**
 * How many commands the server has run so far: the proof that a service really counts in Redis
 * (and did not fall back to its memory), checked against the requests it answered.
 */
export async function commandsProcessed(port: number): Promise<number> {
  const info = await command(port, 'INFO', 'stats');
  const match = /total_commands_processed:(\d+)/.exec(info);
  if (!match) throw new Error(`unexpected INFO reply from redis: ${info.slice(0, 80)}`);
  return Number(match[1]);
}
