import { Injectable } from '@nestjs/common';

/** Whether the instance is shutting down: readiness answers 503 from the signal on. */
@Injectable()
export class ShutdownState {
  draining = false;
}
