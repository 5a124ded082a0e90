/**
 * The private or undocumented properties of Express the service relies on, and nothing else:
 * Express has no public API for its compiled `trust proxy` nor for a route that takes every
 * method. Checked on Express 5.3.0 and its router 2.x; express-internals.spec.ts checks each one
 * on a real Express application.
 */
export const EXPRESS_CHECKED_ON = '5.3.0';

/** A peer's address and its hop (0: the direct peer) → whether that proxy is trusted. */
type TrustTest = (address: string, hop: number) => boolean;

/** Express's `trust proxy` compiled into a test of a peer's address (`'trust proxy fn'`), if set. */
function compiledTrust(
  express: { get(setting: string): unknown } | undefined,
): TrustTest | undefined {
  const test = express?.get('trust proxy fn');
  return typeof test === 'function' ? (test as TrustTest) : undefined;
}

/** Express's `trust proxy` compiled into a test of a peer's address; an error if Express has none. */
export function trustProxyTest(express: { get(setting: string): unknown }): TrustTest {
  const test = compiledTrust(express);
  if (test === undefined) {
    throw new Error(`Express has no 'trust proxy fn' (checked on Express ${EXPRESS_CHECKED_ON})`);
  }
  return test;
}

/** The same test, of the Express application a request belongs to (`req.app`), if any. */
export const trustProxyTestOf = (request: {
  app?: { get(setting: string): unknown };
}): TrustTest | undefined => compiledTrust(request.app);

/** Whether an Express route takes every method (`route.all()` sets `methods._all`). */
export const takesEveryMethod = (methods: Partial<Record<string, boolean>>): boolean =>
  methods._all === true;
