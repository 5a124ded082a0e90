/** Express's `next`: an error (or `'route'`, `'router'`) skips ahead; nothing goes on. */
type Next = (error?: unknown) => void;
/** An Express middleware, whatever request and response types it declares. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Middleware = (request: any, response: any, next: Next) => void;

/**
 * Express middlewares mounted at the root, one after the other, as one: like `app.use(a)`,
 * `app.use(b)` for every request, without Express's work between two of its layers (its router's
 * `next`, the layer's path matched and trimmed), which cost about 1 µs a layer and request on one
 * core (bench/README.md, "Where the time goes"). As Express does, a `next` given a truthy value
 * (an error, `'route'`) hands it to Express and runs none of the rest, and a middleware that
 * throws is Express's `next(error)`, whether it was called at once or from an event.
 */
export function inOrder(...middlewares: Middleware[]): Middleware {
  return (request, response, next) => {
    let index = 0;
    const step: Next = (error) => {
      if (error || index === middlewares.length) return next(error);
      const middleware = middlewares[index++];
      try {
        middleware(request, response, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
