import {
  ArgumentMetadata,
  BadRequestException,
  Injectable,
  SetMetadata,
  ValidationPipe,
} from '@nestjs/common';

/** A fast test of a request body: true only for bodies the class-validator rules accept. */
type Precheck = (body: Record<string, unknown>) => boolean;
const PRECHECK = 'validation-precheck';

/**
 * A body the precheck accepts skips class-transformer and class-validator (the hot path's largest
 * cost); the decorators stay the authority on refusals, which a property test must show.
 */
export const ValidationPrecheck = (precheck: Precheck): ClassDecorator =>
  SetMetadata(PRECHECK, precheck);

/** Deeper bodies are refused outright: class-transformer recurses once per level. */
export const MAX_BODY_DEPTH = 32;

/** Keys Nest's ValidationPipe deletes before validating, so the whitelist would never see them. */
const SKIPPED_KEYS = ['__proto__', 'prototype', 'constructor'];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const hasSkippedKey = (value: Record<string, unknown>): boolean =>
  SKIPPED_KEYS.some((key) => Object.hasOwn(value, key));

function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  for (const key in value) {
    if (nestsDeeperThan((value as Record<string, unknown>)[key], levels - 1)) return true;
  }
  return false;
}

/**
 * A body must be a plain object: class-validator would let an array through and never see the keys
 * Nest strips. Too deep a body is refused before class-transformer's recursion overflows (a 500).
 */
@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: () => new BadRequestException(),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && this.toValidate(metadata)) {
      if (!isPlainObject(value) || hasSkippedKey(value)) throw new BadRequestException();
      const { metatype } = metadata;
      const precheck = metatype && (Reflect.getOwnMetadata(PRECHECK, metatype) as Precheck);
      if (precheck && precheck(value)) return value;
      if (nestsDeeperThan(value, MAX_BODY_DEPTH)) throw new BadRequestException();
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}
