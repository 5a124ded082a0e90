import { Type } from '@nestjs/common';

/** A fast test of a request body: true only for bodies the class-validator rules accept. */
type Precheck = (body: Record<string, unknown>) => boolean;

/** Each DTO's precheck, kept beside the class rather than in a slot on it. */
const prechecks = new WeakMap<object, Precheck>();

/**
 * Gives a DTO a precheck that StrictValidationPipe runs first: a body it accepts skips
 * class-transformer and class-validator (the hot path's largest cost); anything else still goes
 * through them, so the decorators stay the authority for what is refused. A property test must
 * show the precheck never accepts what class-validator refuses.
 */
export const ValidationPrecheck =
  (precheck: Precheck): ClassDecorator =>
  (target) => {
    prechecks.set(target, precheck);
  };

export const precheckOf = (metatype: Type<unknown>): Precheck | undefined =>
  prechecks.get(metatype);
