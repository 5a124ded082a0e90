import { Global, Module } from '@nestjs/common';
import { MetricsServer } from './metrics.server';
import { MetricsService } from './metrics.service';

/**
 * The registry any module injects (MetricsService) to add its own metrics, and the management
 * server that serves it (`GET /metrics` on METRICS_PORT, not on the public port).
 */
@Global()
@Module({
  providers: [MetricsService, MetricsServer],
  exports: [MetricsService],
})
export class MetricsModule {}
