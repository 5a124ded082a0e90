import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post, ValidationPipe } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { Clock, SystemClock } from '../src/common/clock';
import { DepreciationService } from '../src/depreciation/depreciation.service';
import { CalculateDepreciationDto } from '../src/depreciation/dto/calculate-depreciation.dto';

/**
 * The peer, what a NestJS user would write: Nest on Express with its defaults, the global
 * ValidationPipe and @nestjs/throttler's stock storage (a day, a limit never reached; off with
 * PEER_THROTTLER=off), the same route, DTO and DepreciationService as the service.
 */
const throttled = process.env.PEER_THROTTLER !== 'off';

@Controller('api')
class PeerController {
  constructor(private readonly service: DepreciationService) {}

  @Post('depreciate')
  @HttpCode(200)
  calculate(@Body() request: CalculateDepreciationDto) {
    return this.service.calculate(request);
  }
}

@Module({
  imports: throttled ? [ThrottlerModule.forRoot([{ ttl: 86_400_000, limit: 1_000_000_000 }])] : [],
  controllers: [PeerController],
  providers: [
    DepreciationService,
    { provide: Clock, useClass: SystemClock },
    ...(throttled ? [{ provide: APP_GUARD, useClass: ThrottlerGuard }] : []),
  ],
})
class PeerModule {}

void NestFactory.create(PeerModule).then((app) => {
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }));
  return app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');
});
