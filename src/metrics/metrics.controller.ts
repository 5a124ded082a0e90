import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { SkipThrottle } from '@nestjs/throttler';
import { MetricsService } from './metrics.service';

/** `GET /metrics`: the Prometheus exposition text. Operational, so neither counted nor documented. */
@ApiExcludeController()
@SkipThrottle()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  async scrape(@Res() response: Response): Promise<void> {
    const text = await this.metrics.scrape();
    // Written as is: Express's send() would reorder the content type's parameters.
    response.setHeader('Content-Type', this.metrics.contentType);
    response.end(text);
  }
}
