import 'reflect-metadata';
import { Body, Controller, HttpCode, Inject, Module, Post, ValidationPipe } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { listenAddress } from './ceiling';
import { dist } from './project';

/**
 * The peer: what a NestJS user would write instead. A plain Nest app on Express (its defaults:
 * JSON body parser, X-Powered-By, ETag), the global ValidationPipe, and @nestjs/throttler with its
 * stock in-memory storage as APP_GUARD, the limit so high it never rejects. It serves the same
 * route with the project's own DTO and DepreciationService (from dist/).
 */
const { CalculateDepreciationDto } = dist.dto();
const { DepreciationService } = dist.service();
const { Clock, SystemClock } = dist.clock();

/** The same window as the service's: one day (the stock storage counts a rolling ttl). */
const TTL_MS = 86_400_000;
const LIMIT = 1_000_000_000;

@Controller('api')
class PeerController {
  constructor(
    @Inject(DepreciationService)
    private readonly depreciation: InstanceType<typeof DepreciationService>,
  ) {}

  @Post('depreciate')
  @HttpCode(200)
  calculate(@Body() request: InstanceType<typeof CalculateDepreciationDto>) {
    return this.depreciation.calculate(request);
  }
}

// The DTO class is loaded from dist/ at run time, so TypeScript cannot emit its type as the
// parameter's metadata: name it here, as `@Body() request: CalculateDepreciationDto` would.
Reflect.defineMetadata(
  'design:paramtypes',
  [CalculateDepreciationDto],
  PeerController.prototype,
  'calculate',
);

/** PEER_THROTTLER=off: the same app without the throttler (what the throttler costs). */
const throttled = process.env.PEER_THROTTLER !== 'off';

@Module({
  imports: throttled ? [ThrottlerModule.forRoot([{ ttl: TTL_MS, limit: LIMIT }])] : [],
  controllers: [PeerController],
  providers: [
    DepreciationService,
    { provide: Clock, useClass: SystemClock },
    ...(throttled ? [{ provide: APP_GUARD, useClass: ThrottlerGuard }] : []),
  ],
})
class PeerModule {}

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(PeerModule);
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }));
  const { port, host } = listenAddress();
  await app.listen(port, host);
}

void bootstrap();
