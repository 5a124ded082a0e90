import { Global, Module } from '@nestjs/common';
import { MetricsServer } from './metrics.server';
import { MetricsService } from './metrics.service';

/** Global so that any module can inject MetricsService to add its own metrics. */
@Global()
@Module({ providers: [MetricsService, MetricsServer], exports: [MetricsService] })
export class MetricsModule {}
