import { NotFoundException } from '@nestjs/common';
import type { RequestHandler } from 'express';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { asset, LIBRARY_CACHING, OWN_FILE_CACHING } from './page/page-assets';

/** Only what the page loads: not the package's README, LICENSE, source maps or other bundles. */
const UI_FILES: ReadonlyArray<readonly [string, string]> = [
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
  ['favicon-16x16.png', 'image/png'],
];

/** Answered by SwaggerModule itself, relative to the docs path (`/docs` and `/docs/` alike). */
const SWAGGER_MODULE_PATHS = new Set(['/', '/swagger-ui-init.js']);

/**
 * Mounted before SwaggerModule so no request reaches its static folder, which would serve the whole
 * package with ETags and ranges and answer `/docs/.` with an HTML redirect.
 */
export function swaggerUiFiles(): RequestHandler {
  // Read once, so a missing file stops start-up rather than failing a visitor; from the copy
  // @nestjs/swagger itself depends on, the one its page is made for.
  const fromSwaggerModule = createRequire(require.resolve('@nestjs/swagger'));
  const folder = dirname(fromSwaggerModule.resolve('swagger-ui-dist/package.json'));
  const files = new Map(
    UI_FILES.map(([name, type]) => [`/${name}`, asset(join(folder, name), type, LIBRARY_CACHING)]),
  );
  return (request, response, next) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    if (SWAGGER_MODULE_PATHS.has(request.path)) {
      response.setHeader('Cache-Control', OWN_FILE_CACHING);
      return next();
    }
    const file = files.get(request.path);
    if (file === undefined)
      return next(new NotFoundException(`Cannot ${request.method} ${request.originalUrl}`));
    response.statusCode = 200;
    response.setHeader('Content-Type', file.contentType);
    response.setHeader('Content-Length', file.body.length);
    response.setHeader('Cache-Control', file.cacheControl);
    response.end(file.body);
  };
}
