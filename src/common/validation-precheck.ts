import { Type } from '@nestjs/common';

const PRECHECK = Symbol('validation-precheck');

/** A fast test of a request body: true only for bodies the class-validator rules accept. */
type Precheck = (body: Record<string, unknown>) => boolean;

/**
 * Gives a DTO a precheck that StrictValidationPipe runs first: a body it accepts skips
 * class-transformer and class-validator (the hot path's largest cost); anything else still goes
 * through them, so the decorators stay the authority for what is refused. A property test must
 * show the precheck never accepts what class-validator refuses.
 */
export const ValidationPrecheck =
  (precheck: Precheck): ClassDecorator =>
  (target) => {
    Object.defineProperty(target, PRECHECK, { value: precheck });
  };

export const precheckOf = (metatype: Type<unknown>): Precheck | undefined =>
  (metatype as unknown as Record<symbol, Precheck | undefined>)[PRECHECK];
