import 'reflect-metadata';
import { BadRequestException, Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Clock, SystemClock } from '../src/common/clock';
import { DepreciationService } from '../src/depreciation/depreciation.service';
import { INVALID_INPUT_MESSAGE } from '../src/common/error-messages';
import { passesPrecheck } from './precheck';

/**
 * The bare Nest route, the base of the bench's goals: Nest on Express with its default JSON body
 * parser and one controller, which runs the service's precheck (a 400 otherwise) and then
 * DepreciationService with the real clock. No pipe, guard, filter, middleware, metrics, and no log
 * line but warnings and errors: what the service adds to Nest is measured against it.
 */
@Controller('api')
class BareController {
  constructor(private readonly service: DepreciationService) {}

  @Post('depreciate')
  @HttpCode(200)
  calculate(@Body() body: unknown) {
    if (!passesPrecheck(body)) throw new BadRequestException(INVALID_INPUT_MESSAGE);
    return this.service.calculate(body);
  }
}

@Module({
  controllers: [BareController],
  providers: [DepreciationService, { provide: Clock, useClass: SystemClock }],
})
class BareModule {}

void NestFactory.create(BareModule, { logger: ['error', 'warn'] }).then((app) =>
  app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1'),
);
