/**
 * The private or undocumented properties of Express the service relies on, and nothing else:
 * Express has no public API for its compiled `trust proxy` nor for a route that takes every
 * method. Checked on Express 5.3.0 and its router 2.x; express-internals.spec.ts checks each one
 * on a real Express application.
 */
export const EXPRESS_CHECKED_ON = '5.3.0';

/** Express's `trust proxy` compiled into a test of a peer's address (`'trust proxy fn'`). */
export function trustProxyTest(express: {
  get(setting: string): unknown;
}): (address: string, hop: number) => boolean {
  const test = express.get('trust proxy fn');
  if (typeof test !== 'function') {
    throw new Error(`Express has no 'trust proxy fn' (checked on Express ${EXPRESS_CHECKED_ON})`);
  }
  return test as (address: string, hop: number) => boolean;
}

/** The compiled `trust proxy` of the Express application a request belongs to (`req.app`), if any. */
export function trustProxyTestOf(request: {
  app?: { get(setting: string): unknown };
}): ((address: string, hop: number) => boolean) | undefined {
  const test = request.app?.get('trust proxy fn');
  return typeof test === 'function'
    ? (test as (address: string, hop: number) => boolean)
    : undefined;
}

/** Whether an Express route takes every method (`route.all()` sets `methods._all`). */
export const takesEveryMethod = (methods: Partial<Record<string, boolean>>): boolean =>
  methods._all === true;
