// Quiet Nest's start-up lines in tests unless a run asks for them; 500s are still logged.
process.env.LOG_LEVEL ??= 'error';
