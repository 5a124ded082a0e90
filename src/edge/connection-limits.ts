import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { clientKey } from '../common/client-key';

/** The limits one HTTP server holds its connections to (docs/operations.md, "Robustness"). */
export interface ConnectionLimits {
  /** Connections open at once, all clients together; 0: 90 % of the descriptor limit. */
  maxConnections: number;
  /** Connections open at once from one client address (an IPv6 /64). */
  maxConnectionsPerClient: number;
  /** Connections past that per-client cap still answered 503 (the rest are closed at accept). */
  connectionRefusalsPerClient: number;
  /** How long such a connection may take to send a request's headers before its 503 anyway. */
  connectionRefusalTimeoutMs: number;
  /** Requests one connection may have waiting for their answers (pipelining depth). */
  maxPipelinedRequests: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

function descriptorLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The configured ceiling, else 90 % of the descriptor limit (the rest for files, Redis and logs).
 * Past it Node closes a connection at accept: the only connection closed without an answer.
 */
export function connectionCeiling(configured: number): number {
  if (configured > 0) return configured;
  const descriptors = descriptorLimit();
  return descriptors === undefined ? 10_000 : Math.max(16, Math.floor(descriptors * 0.9));
}

interface ClientCount {
  served: number;
  refused: number;
}

export interface CapPlace {
  client: string;
  count: ClientCount;
  served: boolean;
}

/**
 * Each client's open connections: refusals past the cap get a 503 (not counted against the daily
 * limit), further ones are closed at accept, so the cap bounds one client's descriptors. Trusted
 * proxies are exempt: every request comes through them.
 */
export class ConnectionCap {
  private readonly open = new Map<string, ClientCount>();

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly isTrustedProxy: (address: string) => boolean,
  ) {}

  /** Undefined for a trusted proxy's connection; 'closed' past even the refusals (destroyed). */
  admit(socket: Socket): CapPlace | undefined | 'closed' {
    const address = socket.remoteAddress;
    if (address === undefined || this.isTrustedProxy(address)) return undefined;
    // The same client as the daily limit's: an IPv6 /64 is one client.
    const client = clientKey({ ip: undefined, socket });
    const count = this.open.get(client) ?? { served: 0, refused: 0 };
    const served = count.served < this.limits.maxConnectionsPerClient;
    if (!served && count.refused >= this.limits.connectionRefusalsPerClient) {
      socket.destroy();
      return 'closed';
    }
    if (served) count.served += 1;
    else count.refused += 1;
    this.open.set(client, count);
    return { client, count, served };
  }

  release(place: CapPlace): void {
    if (place.served) place.count.served -= 1;
    else place.count.refused -= 1;
    if (place.count.served === 0 && place.count.refused === 0) this.open.delete(place.client);
  }
}
