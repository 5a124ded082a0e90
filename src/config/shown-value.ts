const SECRET_SETTINGS = new Set(['REDIS_PASSWORD', 'REDIS_SENTINEL_PASSWORD']);

/** An `@` in a `host:port` list can only be credentials pasted in, perhaps a password. */
const NODE_LISTS = new Set(['REDIS_SENTINELS', 'REDIS_CLUSTER_NODES']);

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const NOT_SHOWN = ' (value not shown: it may hold a password)';

/**
 * Masks up to the LAST `@`: a password may hold any character, a host, port or database never an
 * `@`. The user name goes too: `redis://Jw5:Hy2@host` may be a password without its user name.
 */
function withoutPassword(text: string): string {
  const at = text.lastIndexOf('@');
  if (at === -1) return text;
  const start = SCHEME.exec(text)?.[0].length ?? 0;
  return `${text.slice(0, start)}***${text.slice(at)}`;
}

/** Only a URL that parses once masked: `redis://:secret` or a bare password may be all password. */
function shownUrl(value: string): string {
  const masked = withoutPassword(value);
  return SCHEME.test(value) && URL.canParse(masked) ? `=${JSON.stringify(masked)}` : NOT_SHOWN;
}

/** For the start-up error: never any part of a password, whatever characters it holds. */
export function shownValue(name: string, value: unknown): string {
  if (SECRET_SETTINGS.has(name)) return ' (value not shown: a password)';
  if (typeof value !== 'string') return `=${JSON.stringify(value)}`;
  if (name === 'REDIS_URL') return shownUrl(value);
  if (NODE_LISTS.has(name) && value.includes('@')) return NOT_SHOWN;
  return `=${JSON.stringify(withoutPassword(value))}`;
}
