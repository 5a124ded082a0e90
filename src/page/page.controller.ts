import { Controller, Get, NotFoundException, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { SkipThrottle } from '@nestjs/throttler';
import { loadPageAssets, PageAsset } from './page-assets';

/** security-headers.ts treats these as documents a browser renders. */
export const PAGE_PATH = '/';
export const ASSETS_PATH = '/assets/';

/**
 * Not express.static: as part of AppModule the e2e tests have it, with the API's filter and
 * middleware, and it serves a list of files, not a folder. Only the page's calculations count.
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
