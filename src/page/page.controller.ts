import { Controller, Get, NotFoundException, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { SkipThrottle } from '@nestjs/throttler';
import { loadPageAssets, PageAsset } from './page-assets';

/** The page's paths: documents a browser renders, which security-headers.ts treats as such. */
export const PAGE_PATH = '/';
export const ASSETS_PATH = '/assets/';

/**
 * The calculator page (`GET /`) and its assets (`GET /assets/:name`).
 *
 * Served by a Nest controller rather than express.static registered in configureApp: the routes
 * are then part of AppModule (so every e2e test built from it has them), go through the same
 * exception filter (an unknown asset is the contract's JSON 404) and the same middleware as the
 * API (security headers, logs, metrics), and serve an explicit list of files rather than a folder.
 * The global daily-limit guard does run here, so the controller opts out of it explicitly:
 * loading the page is free; the calculations it makes are ordinary, counted API requests.
 */
@ApiExcludeController()
@SkipThrottle()
@Controller()
export class PageController {
  private readonly files = loadPageAssets();

  @Get(PAGE_PATH)
  page(@Res({ passthrough: true }) response: Response): StreamableFile {
    return this.send(response, this.files.page);
  }

  @Get(`${ASSETS_PATH}:name`)
  asset(
    @Param('name') name: string,
    @Res({ passthrough: true }) response: Response,
  ): StreamableFile {
    const file = this.files.assets.get(name);
    if (!file) throw new NotFoundException(`Cannot GET ${ASSETS_PATH}${name}`);
    return this.send(response, file);
  }

  private send(response: Response, file: PageAsset): StreamableFile {
    response.setHeader('Cache-Control', file.cacheControl);
    return new StreamableFile(file.body, { type: file.contentType, length: file.body.length });
  }
}
