/** Settings whose whole value is a secret: a refusal names them without it. */
const SECRET_SETTINGS = new Set(['REDIS_PASSWORD', 'REDIS_SENTINEL_PASSWORD']);

/** Lists of `host:port`: an `@` in one can only be credentials pasted in, perhaps a password. */
const NODE_LISTS = new Set(['REDIS_SENTINELS', 'REDIS_CLUSTER_NODES']);

/** A URL's scheme and `//`, e.g. `redis://`: what comes before its user information. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

const NOT_SHOWN = ' (value not shown: it may hold a password)';

/**
 * `text` with the password of its user information replaced by `***`. The user information runs
 * from the scheme's `//` (or the start) to the LAST `@`: a password may hold `@`, `/`, `:`, quotes,
 * spaces or anything else, while what follows it (a host, a port, a database number) never holds
 * an `@`. The user name goes too: `redis://Jw5:Hy2@host` may be a password whose user name was
 * left out.
 */
function withoutPassword(text: string): string {
  const at = text.lastIndexOf('@');
  if (at === -1) return text;
  const start = SCHEME.exec(text)?.[0].length ?? 0;
  return `${text.slice(0, start)}***${text.slice(at)}`;
}

/**
 * REDIS_URL as it may be shown (shownValue): only as a URL (a scheme, `//`), its password masked, that WHATWG's
 * URL reads once masked. Anything else is not a URL whose parts can be told apart, so no part of
 * it is shown: `redis://:secret` (no host) or a password pasted alone may be all password.
 */
function shownUrl(value: string): string {
  const masked = withoutPassword(value);
  return SCHEME.test(value) && URL.canParse(masked) ? `=${JSON.stringify(masked)}` : NOT_SHOWN;
}

/**
 * How a refused setting's value follows its name in the start-up error: `="…"` (JSON), with no
 * part of any password it may carry, whatever characters the password holds, or a note that it is
 * not shown.
 */
export function shownValue(name: string, value: unknown): string {
  if (SECRET_SETTINGS.has(name)) return ' (value not shown: a password)';
  if (typeof value !== 'string') return `=${JSON.stringify(value)}`;
  if (name === 'REDIS_URL') return shownUrl(value);
  if (NODE_LISTS.has(name) && value.includes('@')) return NOT_SHOWN;
  return `=${JSON.stringify(withoutPassword(value))}`;
}
