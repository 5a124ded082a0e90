import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { contentSecurityPolicy } from 'helmet';

type Middleware = (
  request: IncomingMessage,
  response: ServerResponse,
  next: (error?: unknown) => void,
) => void;

const SELF = ["'self'"];

/**
 * Same origin only, nothing inline: the calculator page loads its scripts, styles and images from
 * the service itself. No upgrade-insecure-requests, so the page also works over plain HTTP on a
 * developer's machine (behind TLS every URL is already https).
 */
const DIRECTIVES = {
  defaultSrc: SELF,
  scriptSrc: SELF,
  styleSrc: SELF,
  imgSrc: SELF,
  fontSrc: SELF,
  connectSrc: SELF,
  objectSrc: ["'none'"],
  upgradeInsecureRequests: null,
};

/** helmet's headers with the CSP above, for every answer. */
export const securityHeaders = (): Middleware =>
  helmet({ contentSecurityPolicy: { directives: DIRECTIVES } });

/**
 * The CSP of Swagger UI's pages, which replaces the one above under the docs path: its index page
 * has inline `<style>` blocks and `style` attributes, and its stylesheet draws icons from data:
 * URLs. Scripts stay same-origin only (its init script is a file).
 */
export const docsContentSecurityPolicy = (): Middleware =>
  contentSecurityPolicy({
    directives: {
      ...DIRECTIVES,
      styleSrc: [...SELF, "'unsafe-inline'"],
      imgSrc: [...SELF, 'data:'],
    },
  });
