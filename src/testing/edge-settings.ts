/**
 * The edge's settings (EdgeSettings, checked where a spec passes them to installEdge) for specs on
 * a server in their own process: short lingering and shutdown.
 */
export const EDGE_TEST_SETTINGS = {
  MAX_CONNECTIONS: 100,
  MAX_CONNECTIONS_PER_CLIENT: 100,
  CONNECTION_REFUSALS_PER_CLIENT: 0,
  CONNECTION_REFUSAL_TIMEOUT_MS: 1_000,
  MAX_PIPELINED_REQUESTS: 8,
  HEADERS_TIMEOUT_MS: 10_000,
  REQUEST_TIMEOUT_MS: 15_000,
  KEEP_ALIVE_TIMEOUT_MS: 5_000,
  LINGERING_TIME_MS: 1_000,
  LINGERING_TIMEOUT_MS: 500,
  SHUTDOWN_TIMEOUT_MS: 1_000,
  SHUTDOWN_DRAIN_DELAY_MS: 0,
};
