/**
 * Passwords of the shapes generated and base64 secrets take, and those an operator may type: each
 * holds characters a URL gives meaning to (`/`, `+`, `@`, `"`, a space, `%`, `?`, `#`, `:`, `=`).
 */
export const PASSWORD_SHAPES = [
  'Ab3/xY9+Qz',
  'Sup3r@Vq8Kw',
  'ad@m1n@Zr7',
  'Q"7z Wk"4p',
  '50%off',
  'dGhpc2lz+c2Vj/cmV0Kz==',
  'Tq9?mX#4v',
  'Jw5:Hy2:Lp',
  'Pa%25s~w0rd',
];

/** The parts of `secret` of 3 characters or more that `text` holds: none may be printed. */
export function leakedParts(secret: string, text: string): string[] {
  const parts = new Set<string>();
  for (let start = 0; start < secret.length; start++) {
    for (let end = start + 3; end <= secret.length; end++) {
      const part = secret.slice(start, end);
      if (text.includes(part)) parts.add(part);
    }
  }
  return [...parts];
}
