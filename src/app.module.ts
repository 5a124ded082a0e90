import { Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AfterRoutes } from './common/after-routes';
import { AllExceptionsFilter } from './common/all-exceptions.filter';
import { Clock, SystemClock } from './common/clock';
import { ErrorResponses } from './common/error-responses';
import { StrictValidationPipe } from './common/strict-validation.pipe';
import { WarmUpState } from './common/warm-up-state';
import { configFromEnvironment } from './config/environment';
import { DepreciationModule } from './depreciation/depreciation.module';
import { HealthModule } from './health/health.module';
import { PageController } from './page/page.controller';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { Tracing } from './tracing/tracing';
import { tracingSettings } from './tracing/tracing-settings';
import { CORS_ANSWER_HEADERS, JSON_SECURITY_HEADERS } from './security/security-headers';

/**
 * Global: the one error writer, so every error response, the edge's too, carries CORS (a page can
 * read it) and the JSON security set; the Clock (tests replace it with overrideProvider(Clock));
 * the traces, off unless configured; and whether the service warms up (warm-up.ts).
 */
@Global()
@Module({
  providers: [
    { provide: Clock, useClass: SystemClock },
    WarmUpState,
    // The standard OTEL_* variables, read as the OpenTelemetry SDK reads them: process.env.
    { provide: Tracing, useFactory: () => Tracing.start(tracingSettings(process.env)) },
    {
      provide: ErrorResponses,
      useFactory: () => new ErrorResponses([...CORS_ANSWER_HEADERS, ...JSON_SECURITY_HEADERS]),
    },
  ],
  exports: [ErrorResponses, Clock, Tracing, WarmUpState],
})
class CommonModule {}

/**
 * The daily limit, validation and the error body are global (APP_*), so they apply to every module
 * imported here, and every e2e test that imports AppModule runs the production pipeline.
 */
@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, validate: configFromEnvironment }),
    CommonModule,
    LoggingModule,
    MetricsModule,
    RateLimitModule,
    DepreciationModule,
    HealthModule,
  ],
  // The calculator page: a static page that calls the public API from the browser.
  controllers: [PageController],
  providers: [
    { provide: APP_PIPE, useClass: StrictValidationPipe },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    AfterRoutes,
  ],
})
export class AppModule {}
