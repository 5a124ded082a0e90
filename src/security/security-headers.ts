import type { RequestHandler as Middleware } from 'express';
import helmet, { contentSecurityPolicy } from 'helmet';
import { pathOf, REQUEST_ID_HEADER } from '../common/answer-record';
import { expressPath, fixedHeaders, setFixedHeaders } from '../common/platform-internals';
import { ASSETS_PATH, PAGE_PATH } from '../page/page.controller';
import { RATE_LIMIT_HEADERS } from '../rate-limit/daily-limit.policy';

type Headers = ReadonlyArray<readonly [string, string]>;

const EXPOSED_HEADERS = [...Object.values(RATE_LIMIT_HEADERS), REQUEST_ID_HEADER].join(',');

/** Also on refusals at the edge: without them a page sees a network error, not the error body. */
export const CORS_ANSWER_HEADERS: Headers = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS],
];

/** Any `OPTIONS` is answered 204 in the middleware, before routing, so it never counts. */
const CORS_PREFLIGHT = fixedHeaders([
  ...CORS_ANSWER_HEADERS,
  ['Access-Control-Allow-Methods', 'GET,HEAD,POST'],
  ['Access-Control-Allow-Headers', `Content-Type,${REQUEST_ID_HEADER}`],
  ['Access-Control-Max-Age', '86400'],
  ['Content-Length', '0'],
]);

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
export const JSON_SECURITY_HEADERS: Headers = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
];

/** Checked once here, not on every answer. */
const JSON_SET = fixedHeaders(JSON_SECURITY_HEADERS);
const CORS_ANSWER = fixedHeaders(CORS_ANSWER_HEADERS);

/** helmet's whole set on documents, the short JSON set elsewhere, Swagger UI's CSP under docs. */
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
    const underDocsMount = isDocs(expressPath(request.path ?? path));
    const document = isDocument(path);
    if (!document) setFixedHeaders(response, JSON_SET);
    // The API's answers: no callback per request.
    if (!underDocsMount && !document) return corsHeaders(request, response, next);
    const cors = (error?: unknown) =>
      error === undefined ? corsHeaders(request, response, next) : next(error);
    const docs = (error?: unknown) =>
      error === undefined && underDocsMount ? forDocs(request, response, cors) : cors(error);
    if (document) return forDocuments(request, response, docs);
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
