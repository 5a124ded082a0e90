import { Injectable, OnModuleInit } from '@nestjs/common';

/**
 * Mounts handlers after the routes, before Nest's 404 handler (NestApplication.init runs
 * `onModuleInit` between them, checked on Nest 12.5.1): mounted earlier, every API request would
 * first try each of them, the Swagger UI's nine routes included.
 */
@Injectable()
export class AfterRoutes implements OnModuleInit {
  private readonly steps: (() => void)[] = [];
  private done = false;

  /** Too late once the routes are set up: it would come after Nest's 404 handler, never reached. */
  add(step: () => void): void {
    if (this.done) throw new Error('AfterRoutes.add after the application was initialised');
    this.steps.push(step);
  }

  onModuleInit(): void {
    this.done = true;
    this.steps.splice(0).forEach((step) => step());
  }
}
