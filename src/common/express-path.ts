/** As Express's default routing matches paths (`strict`, `caseSensitive` off): all must agree. */
export function expressPath(path: string): string {
  const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return bare.toLowerCase();
}
