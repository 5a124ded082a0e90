import { StartupRefusal } from './startup-refusal';

/** Listen failures the operator fixes by choosing another port. */
const PORT_REASONS: Partial<Record<string, string>> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
};

/** …and those fixed by choosing another address. */
const HOST_REASONS: Partial<Record<string, string>> = {
  EADDRNOTAVAIL: "address not available: none of this machine's interfaces has it",
  EINVAL: 'the system refuses this address (EINVAL)',
  EAFNOSUPPORT: 'address family not supported on this machine',
};

/** Linux refuses a link-local IPv6 address without its interface (fe80::/10). */
const LINK_LOCAL = /^fe[89ab][0-9a-f]:/i;

export interface ListenSettings {
  host: string;
  port: number;
  /** Of the settings to change: HOST and PORT, or METRICS_HOST and METRICS_PORT. */
  prefix: '' | 'METRICS_';
}

type ListenFailure = { syscall?: string; code?: string; address?: string; port?: number };

/** Start-up stops with this one line: the operator must choose another port or address. */
function refusal(host: string, port: number | undefined, variable: string, reason: string) {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new StartupRefusal(`Cannot listen on ${where} (${variable}): ${reason}`);
}

function hostReason({ syscall, code = '' }: ListenFailure, host: string): string | undefined {
  // The host name does not resolve (ENOTFOUND), or the resolver does not answer (EAI_AGAIN).
  if (syscall === 'getaddrinfo') return `the host name cannot be resolved (${code})`;
  if (syscall !== 'listen') return undefined;
  const reason = HOST_REASONS[code];
  if (code === 'EINVAL' && LINK_LOCAL.test(host))
    return `${reason}: a link-local address needs its interface, e.g. fe80::1%eth0`;
  return reason;
}

/** A StartupRefusal naming the setting to change; any other error is returned, for its stack. */
export function explainListenError(error: unknown, settings: ListenSettings): unknown {
  const { host, port, prefix } = settings;
  const failure = (error ?? {}) as ListenFailure;
  const portReason = failure.syscall === 'listen' ? PORT_REASONS[failure.code ?? ''] : undefined;
  if (portReason !== undefined) {
    return refusal(failure.address ?? host, failure.port, `${prefix}PORT`, portReason);
  }
  const reason = hostReason(failure, host);
  return reason === undefined ? error : refusal(host, port, `${prefix}HOST`, reason);
}
