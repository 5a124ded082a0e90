/**
 * Addresses for test clients, so no test picks a loopback address by hand. Budgets, connection
 * caps and Redis keys are per client address, so two tests that shared one would spend each
 * other's budget.
 *
 * Jest runs test files in parallel workers: worker W (JEST_WORKER_ID, 1 to 254) owns 127.W.0.0/16,
 * so files in different workers never meet. 127.0.0.0/16 is left to the server (127.0.0.1), nginx
 * (127.0.0.2) and the few tests where the address itself is what is tested.
 *
 * Jest gives each test file fresh modules, so the count starts again in every file. That is safe:
 * the files of one worker run one after the other, and each starts its own servers and its own
 * redis-server (a free port, no persistence) and stops them in its afterAll, so no budget or key
 * outlives the file that spent it.
 */
const PER_THIRD = 254;
const CAPACITY = 256 * PER_THIRD;

function workerOctet(): number {
  const raw = process.env.JEST_WORKER_ID ?? '1';
  const worker = Number(raw);
  if (!Number.isInteger(worker) || worker < 1 || worker > 254) {
    throw new Error(`JEST_WORKER_ID ${raw} is outside 1-254: no 127.W.0.0/16 to give clients`);
  }
  return worker;
}

const WORKER = workerOctet();
let issued = 0;

/** A loopback address no other client of this test run has: 127.W.x.y, y from 1 to 254. */
export function nextClient(): string {
  if (issued >= CAPACITY) throw new Error(`more than ${CAPACITY} clients in one test file`);
  const n = issued++;
  return `127.${WORKER}.${Math.floor(n / PER_THIRD)}.${(n % PER_THIRD) + 1}`;
}

/** `count` addresses from nextClient(), in order. */
export function nextClients(count: number): string[] {
  return Array.from({ length: count }, () => nextClient());
}
