import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { contentSecurityPolicy } from 'helmet';
import { pathOf } from '../common/answer-record';
import { expressPath, fixedHeaders, setFixedHeaders } from '../common/platform-internals';
import { ASSETS_PATH, PAGE_PATH } from '../page/page.controller';
import { CORS_ANSWER_HEADERS, CORS_PREFLIGHT_HEADERS } from './cors.options';

type Middleware = (
  request: IncomingMessage,
  response: ServerResponse,
  next: (error?: unknown) => void,
) => void;

const SELF = ["'self'"];

/** No upgrade-insecure-requests, so the page also works over plain HTTP on a developer machine. */
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

/**
 * Swagger UI's index page has inline `<style>` blocks and `style` attributes, and its stylesheet
 * draws icons from data: URLs. Scripts stay same-origin (its init script is a file).
 */
const DOCS_DIRECTIVES = {
  ...DIRECTIVES,
  styleSrc: [...SELF, "'unsafe-inline'"],
  imgSrc: [...SELF, 'data:'],
};

/**
 * What a JSON answer needs of helmet's set (OWASP REST cheat sheet); the others govern how a
 * browser renders a document, which a JSON answer is not.
 */
export const JSON_SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
];

/** Checked once here, not on every answer. */
const JSON_SET = fixedHeaders(JSON_SECURITY_HEADERS);
const CORS_ANSWER = fixedHeaders(CORS_ANSWER_HEADERS);
const CORS_PREFLIGHT = fixedHeaders(CORS_PREFLIGHT_HEADERS);

/**
 * helmet's whole set on documents, the short JSON set elsewhere, Swagger UI's CSP under the docs
 * path; a preflight is answered here, before routing, so it is never counted.
 */
export function responseHeaders(docsPath: string): Middleware {
  const isDocs = (path: string) => path === `/${docsPath}` || path.startsWith(`/${docsPath}/`);
  const isDocument = (path: string) =>
    path === PAGE_PATH || path.startsWith(ASSETS_PATH) || isDocs(path);
  const forDocuments = helmet({ contentSecurityPolicy: { directives: DIRECTIVES } });
  const forDocs = contentSecurityPolicy({ directives: DOCS_DIRECTIVES });
  return (request, response, next) => {
    const path = pathOf(request.url ?? '/');
    // Matched as Express matched the docs CSP's mount (`/${docsPath}`): on its parsed path
    // (`req.path`), which an absolute-form target or a fragment does not change.
    const underDocsMount = isDocs(expressPath((request as { path?: string }).path ?? path));
    if (!underDocsMount && !isDocument(path)) {
      // The API's answers: no callback per request.
      setFixedHeaders(response, JSON_SET);
      return corsHeaders(request, response, next);
    }
    const cors = (error?: unknown) =>
      error === undefined ? corsHeaders(request, response, next) : next(error);
    const docs = (error?: unknown) =>
      error === undefined && underDocsMount ? forDocs(request, response, cors) : cors(error);
    if (isDocument(path)) return forDocuments(request, response, docs);
    setFixedHeaders(response, JSON_SET);
    docs();
  };
}

const corsHeaders: Middleware = (request, response, next) => {
  if (request.method !== 'OPTIONS') {
    setFixedHeaders(response, CORS_ANSWER);
    return next();
  }
  setFixedHeaders(response, CORS_PREFLIGHT);
  response.statusCode = 204;
  response.end();
};
