// Quiet Nest's start-up lines in tests unless a run asks for them; 500s are still logged.
process.env.LOG_LEVEL ??= 'error';
// The management port: one the system chooses, so apps and servers of parallel tests never clash.
process.env.METRICS_PORT ??= '0';
