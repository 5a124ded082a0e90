export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it answers true, or fails after `timeoutMs` with `what` in the message.
 * A rejection of `check` fails at once (e.g. the program being waited for has exited).
 */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 5_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
