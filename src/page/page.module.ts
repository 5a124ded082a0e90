import { Module } from '@nestjs/common';
import { PageController } from './page.controller';

/** The calculator page: a static page that calls the public API from the browser. */
@Module({ controllers: [PageController] })
export class PageModule {}
