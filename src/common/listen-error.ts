import { StartupRefusal } from './startup-refusal';

type Reason = readonly ['PORT' | 'HOST', string];

/** Listen failures the operator fixes by choosing another port, or another address (the host). */
const REASONS: Partial<Record<string, Reason>> = {
  EADDRINUSE: ['PORT', 'address already in use'],
  EACCES: ['PORT', 'permission denied'],
  EADDRNOTAVAIL: ['HOST', "address not available: none of this machine's interfaces has it"],
  EINVAL: ['HOST', 'the system refuses this address (EINVAL)'],
  EAFNOSUPPORT: ['HOST', 'address family not supported on this machine'],
};

/** Linux refuses a link-local IPv6 address without its interface (fe80::/10). */
const LINK_LOCAL = /^fe[89ab][0-9a-f]:/i;
const LINK_LOCAL_HINT = ': a link-local address needs its interface, e.g. fe80::1%eth0';

export interface ListenSettings {
  host: string;
  port: number;
  /** Of the settings to change: HOST and PORT, or METRICS_HOST and METRICS_PORT. */
  prefix: '' | 'METRICS_';
}

type ListenFailure = { syscall?: string; code?: string; address?: string; port?: number };

function reasonFor({ syscall, code = '' }: ListenFailure, host: string): Reason | undefined {
  // The host name does not resolve (ENOTFOUND), or the resolver does not answer (EAI_AGAIN).
  if (syscall === 'getaddrinfo') return ['HOST', `the host name cannot be resolved (${code})`];
  if (syscall !== 'listen') return undefined;
  if (code === 'EINVAL' && LINK_LOCAL.test(host))
    return ['HOST', REASONS.EINVAL![1] + LINK_LOCAL_HINT];
  return REASONS[code];
}

/** A StartupRefusal naming the setting to change; any other error is returned, for its stack. */
export function explainListenError(error: unknown, settings: ListenSettings): unknown {
  const { host, port, prefix } = settings;
  const failure = (error ?? {}) as ListenFailure;
  const [setting, reason] = reasonFor(failure, host) ?? [];
  if (reason === undefined) return error;
  // A taken or denied port is named as the system tried it: its address, its port.
  const [address, at] = setting === 'PORT' ? [failure.address ?? host, failure.port] : [host, port];
  const where = `${address.includes(':') ? `[${address}]` : address}:${at}`;
  return new StartupRefusal(`Cannot listen on ${where} (${prefix}${setting}): ${reason}`);
}
