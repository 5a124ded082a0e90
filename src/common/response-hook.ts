import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

const STARTED_AT = Symbol('startedAt');

/** A response the hook watches: `req` is its request. */
export type WatchedResponse = ServerResponse & { req: IncomingMessage; [STARTED_AT]?: number };

/** Told once per response, when its connection is done with it; `elapsedMs` since it arrived. */
export type ResponseObserver = (response: WatchedResponse, elapsedMs: number) => void;

/**
 * The one per-request hook of the HTTP layer: an Express middleware, mounted first, that stamps
 * when a request arrived and attaches one shared `close` listener that tells each observer (the
 * request log, the metrics). `close` comes once per response, after `finish` for an answer sent
 * whole, or alone when the client left first (`writableFinished` tells which). `onRequest` runs
 * at once, for what must be known before routing (the request id).
 */
export function responseHook(
  observers: ResponseObserver[],
  onRequest: (request: IncomingMessage, response: ServerResponse) => void = () => undefined,
) {
  const onClose = function (this: WatchedResponse): void {
    const elapsedMs = performance.now() - (this[STARTED_AT] ?? performance.now());
    for (const observe of observers) observe(this, elapsedMs);
  };
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    (response as WatchedResponse)[STARTED_AT] = performance.now();
    onRequest(request, response);
    response.on('close', onClose);
    next();
  };
}
