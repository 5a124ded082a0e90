import {
  Controller,
  Injectable,
  Module,
  Post,
  type CanActivate,
  type PipeTransform,
} from '@nestjs/common';
import { APP_GUARD, APP_PIPE, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { additionsNamed, ADDITIONS } from './additions';
import { nestGlobalEnhancers } from './edge/internals';

@Injectable()
class Guard implements CanActivate {
  canActivate = () => true;
}

@Injectable()
class Pipe implements PipeTransform {
  transform = (value: unknown) => value;
}

@Controller()
class Routes {
  @Post()
  post() {
    return {};
  }
}

@Module({
  controllers: [Routes],
  providers: [
    { provide: APP_GUARD, useClass: Guard },
    { provide: APP_PIPE, useClass: Pipe },
  ],
})
class Application {}

describe('additions', () => {
  it('names each addition a bench variant may leave out, and refuses any other name', () => {
    expect([...additionsNamed(['edge', 'metrics'])]).toEqual(['edge', 'metrics']);
    expect(additionsNamed([...ADDITIONS]).size).toBe(ADDITIONS.length);
    expect(() => additionsNamed(['metrics', 'logs'])).toThrow(
      /^Not an addition: logs \(one of edge, /,
    );
  });

  it("reaches the APP_GUARD and APP_PIPE instances in Nest's lists, which app.init() reads", async () => {
    const app = await NestFactory.create<NestExpressApplication>(Application, { logger: false });
    const { guards, pipes } = nestGlobalEnhancers(app);
    expect(guards).toEqual([expect.any(Guard)]);
    expect(pipes).toEqual([expect.any(Pipe)]);
    await app.close();
  });

  it('says which Nest it was checked on when an application has no such lists', () => {
    expect(() => nestGlobalEnhancers({})).toThrow(/has no `config` \(checked on Nest 12\./);
  });
});
