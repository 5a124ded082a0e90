import { spawn } from 'node:child_process';
import { BENCH_JS } from './project';

export interface StoreMemory {
  kind: 'ipv4' | 'ipv6';
  clients: number;
  /** One key as the store holds it. */
  example: string;
  bytesPerClient: number;
}

function measure(kind: StoreMemory['kind'], clients: number): Promise<StoreMemory> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', BENCH_JS('store-memory'), kind, String(clients)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(output) as StoreMemory)
        : reject(new Error(`store-memory ${kind} ${clients} exited with ${code}`)),
    );
  });
}

/** Bytes per tracked client at 100k and 1M clients, IPv4 and IPv6 keys, each in a fresh process. */
export async function measureStoreMemory(): Promise<StoreMemory[]> {
  const results: StoreMemory[] = [];
  for (const kind of ['ipv4', 'ipv6'] as const) {
    for (const clients of [100_000, 1_000_000]) results.push(await measure(kind, clients));
  }
  return results;
}
