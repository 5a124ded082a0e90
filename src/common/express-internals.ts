/**
 * What the service must know of Express: how its routing matches a path (expressPath), and every
 * undocumented property the service uses, each for lack of a public API. Checked on Express 5.3.0
 * and its router 2.x; express-internals.spec.ts checks each property.
 */
export const EXPRESS_CHECKED_ON = '5.3.0';

/** Hop 0 is the direct peer. */
type TrustTest = (address: string, hop: number) => boolean;

/** Undocumented `'trust proxy fn'`: no public API gives Express's compiled `trust proxy`. */
function compiledTrust(
  express: { get(setting: string): unknown } | undefined,
): TrustTest | undefined {
  const test = express?.get('trust proxy fn');
  return typeof test === 'function' ? (test as TrustTest) : undefined;
}

export function trustProxyTest(express: { get(setting: string): unknown }): TrustTest {
  const test = compiledTrust(express);
  if (test === undefined) {
    throw new Error(`Express has no 'trust proxy fn' (checked on Express ${EXPRESS_CHECKED_ON})`);
  }
  return test;
}

export const trustProxyTestOf = (request: {
  app?: { get(setting: string): unknown };
}): TrustTest | undefined => compiledTrust(request.app);

/** Undocumented `methods._all`, set by `route.all()`: no public API tells such a route apart. */
export const takesEveryMethod = (methods: Partial<Record<string, boolean>>): boolean =>
  methods._all === true;

/** As Express's default routing matches paths (`strict`, `caseSensitive` off): all must agree. */
export function expressPath(path: string): string {
  const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return bare.toLowerCase();
}
