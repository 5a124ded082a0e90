import { Injectable, OnModuleInit } from '@nestjs/common';

/**
 * Steps that mount Express handlers after the controllers' routes and before Nest's 404 handler.
 * Nest's `init()` sets up the controllers' routes, then runs every `onModuleInit`, then mounts its
 * 404 and error handlers (NestApplication.init, checked on Nest 12.5.1). A handler mounted before
 * `init()` is tested by every request ahead of the routes: the Swagger UI's nine routes cost each
 * API request a path match apiece. Mounted here, an API request meets its route first.
 */
@Injectable()
export class AfterRoutes implements OnModuleInit {
  private readonly steps: (() => void)[] = [];
  private done = false;

  /**
   * Runs `step` once the routes are set up. Too late once they are: what it mounted would come
   * after Nest's 404 handler, never reached.
   */
  add(step: () => void): void {
    if (this.done) throw new Error('AfterRoutes.add after the application was initialised');
    this.steps.push(step);
  }

  onModuleInit(): void {
    this.done = true;
    this.steps.splice(0).forEach((step) => step());
  }
}
