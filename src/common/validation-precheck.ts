import { Type } from '@nestjs/common';

/** A fast test of a request body: true only for bodies the class-validator rules accept. */
type Precheck = (body: Record<string, unknown>) => boolean;

const prechecks = new WeakMap<object, Precheck>();

/**
 * A body the precheck accepts skips class-transformer and class-validator (the hot path's largest
 * cost); the decorators stay the authority on refusals, which a property test must show.
 */
export const ValidationPrecheck =
  (precheck: Precheck): ClassDecorator =>
  (target) => {
    prechecks.set(target, precheck);
  };

export const precheckOf = (metatype: Type<unknown>): Precheck | undefined =>
  prechecks.get(metatype);
