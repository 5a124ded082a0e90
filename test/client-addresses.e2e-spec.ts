import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { nextClient, nextClients } from '../src/testing/clients';

/**
 * Test clients get their addresses from src/testing/clients.ts. These tests check what it hands
 * out, and that hand-picked loopback addresses do not come back into the test code.
 */

const ROOT = join(__dirname, '..');
/** Where the allocator itself and this file spell out its ranges. */
const ALLOCATOR_FILES = ['src/testing/clients.ts', 'test/client-addresses.e2e-spec.ts'];
/**
 * At most this many distinct loopback literals, each where the address itself is what a test is
 * about (a TRUST_PROXY range's edges, a socket's address as the fallback key).
 */
const MAX_LITERALS = 10;

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The test code: everything under test/ and the unit specs under src/. */
function testFiles(): string[] {
  return [
    ...filesUnder('test', (name) => name.endsWith('.ts')),
    ...filesUnder('src', (name) => name.endsWith('.spec.ts')),
    ...filesUnder('src/testing', (name) => name.endsWith('.ts')),
  ].filter((file) => !ALLOCATOR_FILES.includes(file));
}

/**
 * Each distinct loopback address written out (127.a.b.c; 127.0.0.1, the server's own host and the
 * default client, does not count) or built from a template (`127.0.0.${n}`), with where it is.
 */
function loopbackLiterals(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of testFiles()) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const literals = text.match(/\b127\.\d+\.\d+\.\d+\b|\b127\.(?:\d+\.){0,3}\$\{/g) ?? [];
    for (const literal of literals.filter((address) => address !== '127.0.0.1')) {
      found.set(literal, [...new Set([...(found.get(literal) ?? []), file])]);
    }
  }
  return found;
}

describe('client addresses', () => {
  it('hands out distinct loopback addresses, never a network or broadcast octet', () => {
    const addresses = [nextClient(), ...nextClients(600)];
    expect(new Set(addresses).size).toBe(addresses.length);
    const worker = process.env.JEST_WORKER_ID ?? '1';
    // The first of this file, whatever files this worker ran before: each file gets fresh modules.
    expect(addresses[0]).toBe(`127.${worker}.0.1`);
    for (const address of addresses) {
      const [first, second, third, fourth] = address.split('.').map(Number);
      expect([first, second]).toEqual([127, Number(worker)]);
      expect(third).toBeLessThan(256);
      expect(fourth).toBeGreaterThanOrEqual(1);
      expect(fourth).toBeLessThanOrEqual(254);
    }
  });

  it('gives each Jest worker a /16 of its own, apart from 127.0.0.0/16', () => {
    const firstOf = (worker: string): string[] => {
      const saved = process.env.JEST_WORKER_ID;
      process.env.JEST_WORKER_ID = worker;
      try {
        let clients: string[] = [];
        jest.isolateModules(() => {
          // eslint-disable-next-line @typescript-eslint/no-require-imports
          const fresh = require('../src/testing/clients') as { nextClients: typeof nextClients };
          clients = fresh.nextClients(300);
        });
        return clients;
      } finally {
        process.env.JEST_WORKER_ID = saved;
      }
    };
    const one = firstOf('1');
    const two = firstOf('2');
    expect(one[0]).toBe('127.1.0.1');
    expect(one[254]).toBe('127.1.1.1');
    expect(two[0]).toBe('127.2.0.1');
    expect(one.filter((address) => two.includes(address))).toEqual([]);
    expect(() => firstOf('0')).toThrow('JEST_WORKER_ID 0 is outside 1-254');
  });

  it(`leaves at most ${MAX_LITERALS} hand-picked loopback addresses in the tests`, () => {
    const literals = loopbackLiterals();
    const listing = [...literals].map(([address, files]) => `${address} in ${files.join(', ')}`);
    expect(listing.length <= MAX_LITERALS ? [] : listing).toEqual([]);
  });
});
