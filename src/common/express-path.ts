/**
 * A path as Express's default routing matches it: case-insensitive, and with or without one
 * trailing slash (`strict` and `caseSensitive` off). Every place that must agree with Express on
 * which route or mount a request reaches compares paths through this one function.
 */
export function expressPath(path: string): string {
  const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return bare.toLowerCase();
}
