import { isIP } from 'node:net';

/** A host name's label (RFC 1123): letters, digits and hyphens, not at either end. */
const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/** A name's last label is not all digits: `999.999.999.999` would go to the resolver and fail. */
export function listenHostProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && isIP(value) !== 0) return undefined;
  const labels = typeof value === 'string' && value.length <= 253 ? value.split('.') : [];
  const isName = labels.every((label) => LABEL.test(label)) && /\D/.test(labels.at(-1) ?? '');
  return isName ? undefined : 'must be an IP address or a host name';
}
