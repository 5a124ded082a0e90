import {
  OutgoingMessage,
  type ServerResponse,
  validateHeaderName,
  validateHeaderValue,
} from 'node:http';

/**
 * Where every private or undocumented Node and Express property used, for lack of a public API,
 * was checked: by the platform-internals specs, and src/edge/internals.spec.ts for the edge's own.
 */
export const CHECKED_ON = { node: '26.10.0', express: '5.3.0' } as const;

type HeaderStore = Record<string, [string, string]>;

/** Private `kOutHeaders` (not exported), found by description; if it moves, setHeader is used. */
const OUT_HEADERS = Object.getOwnPropertySymbols(new OutgoingMessage()).find(
  (symbol) => symbol.description === 'kOutHeaders',
);

/**
 * A response header whose name is checked once, not on every answer as setHeader does: about
 * 0.3 µs a header, and an API answer carries eleven (bench/README.md, "Where the time goes").
 */
export class AnswerHeader {
  readonly key: string;

  constructor(readonly name: string) {
    validateHeaderName(name);
    this.key = name.toLowerCase();
  }

  /** Only for values setHeader cannot refuse: checked by withValue, digits, a sane request id. */
  setChecked(response: ServerResponse, value: string): void {
    const store = headerStore(response);
    if (store === undefined) response.setHeader(this.name, value);
    else store[this.key] = [this.name, value];
  }

  withValue(value: string): FixedAnswerHeader {
    validateHeaderValue(this.name, value);
    return { header: this, value };
  }
}

type FixedAnswerHeader = { readonly header: AnswerHeader; readonly value: string };

export const fixedHeaders = (
  pairs: ReadonlyArray<readonly [string, string]>,
): FixedAnswerHeader[] => pairs.map(([name, value]) => new AnswerHeader(name).withValue(value));

export function setFixedHeaders(response: ServerResponse, headers: readonly FixedAnswerHeader[]) {
  for (const { header, value } of headers) header.setChecked(response, value);
}

/** Private `kOutHeaders` store, made as setHeader does; undefined once the head is written. */
function headerStore(response: ServerResponse): HeaderStore | undefined {
  if (OUT_HEADERS === undefined || response.headersSent) return undefined;
  const holder = response as unknown as Record<symbol, HeaderStore | null | undefined>;
  const store = holder[OUT_HEADERS];
  return store === null ? (holder[OUT_HEADERS] = Object.create(null) as HeaderStore) : store;
}

// Express and its router 2.x: its internals, and how its routing matches a path (expressPath).

/** Hop 0 is the direct peer. */
export type TrustProxy = (address: string, hop: number) => boolean;

export type ExpressSettings = { get(setting: string): unknown };

/** Undocumented `'trust proxy fn'`: no public API gives Express's compiled `trust proxy`. */
export function trustProxyTestOf(request: { app?: ExpressSettings }): TrustProxy | undefined {
  const test = request.app?.get('trust proxy fn');
  return typeof test === 'function' ? (test as TrustProxy) : undefined;
}

export function trustProxyTest(express: ExpressSettings): TrustProxy {
  const test = trustProxyTestOf({ app: express });
  if (test !== undefined) return test;
  throw new Error(`Express has no 'trust proxy fn' (checked on Express ${CHECKED_ON.express})`);
}

/** Undocumented `methods._all`, set by `route.all()`: no public API tells such a route apart. */
export const takesEveryMethod = (methods: Partial<Record<string, boolean>>): boolean =>
  methods._all === true;

/** As Express's default routing matches paths (`strict`, `caseSensitive` off): all must agree. */
export function expressPath(path: string): string {
  const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return bare.toLowerCase();
}
