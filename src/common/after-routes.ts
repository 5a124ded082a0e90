import { Injectable, OnModuleInit } from '@nestjs/common';

/**
 * Mounts handlers between the routes and Nest's 404 handler (NestApplication.init runs
 * `onModuleInit` there, Nest 12.5.1): else every API request would first try each, Swagger's nine.
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
