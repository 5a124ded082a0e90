import { Injectable } from '@nestjs/common';

/** True while the service answers only its own requests (warm-up.ts): none is a client's. */
@Injectable()
export class WarmUpState {
  running = false;
}
