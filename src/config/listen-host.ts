import { isIP } from 'node:net';

/** A host name's label (RFC 1123): letters, digits and hyphens, not at either end. */
const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/** `999.999.999.999` would go to the resolver as a name and stop start-up there. */
function isListenHost(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (isIP(value) !== 0) return true;
  const labels = value.split('.');
  return (
    value.length <= 253 &&
    labels.every((label) => LABEL.test(label)) &&
    !/^\d+$/.test(labels.at(-1) ?? '')
  );
}

export const listenHostProblem = (value: unknown): string | undefined =>
  isListenHost(value) ? undefined : 'must be an IP address or a host name';
