import { ArgumentMetadata, BadRequestException, Injectable, ValidationPipe } from '@nestjs/common';
import { precheckOf } from './validation-precheck';

/** Deeper bodies are refused outright: class-transformer recurses once per level. */
export const MAX_BODY_DEPTH = 32;

/** Keys Nest's ValidationPipe deletes before validating, so the whitelist would never see them. */
const SKIPPED_KEYS = ['__proto__', 'prototype', 'constructor'];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const hasSkippedKey = (value: Record<string, unknown>): boolean =>
  SKIPPED_KEYS.some((key) => Object.prototype.hasOwnProperty.call(value, key));

/** Whether objects and arrays nest more than `levels` deep in `value` (recursion: `levels` at most). */
function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  for (const key in value) {
    if (nestsDeeperThan((value as Record<string, unknown>)[key], levels - 1)) return true;
  }
  return false;
}

/**
 * The global ValidationPipe with the contract's rules: strict JSON types (no conversion), unknown
 * fields refused, and one body for every failure. A body must be a JSON object: class-validator
 * would let an array through, and would never see `__proto__`, `prototype` or `constructor` keys
 * (Nest strips them silently): an unknown field is refused, whatever its name. A body nested
 * deeper than MAX_BODY_DEPTH is refused before class-transformer's recursion could overflow the
 * stack (a 500). A DTO with a `@ValidationPrecheck` is accepted without class-validator when its
 * precheck passes.
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
      if (!isPlainObject(value) || hasSkippedKey(value)) {
        throw new BadRequestException();
      }
      if (metadata.metatype && precheckOf(metadata.metatype)?.(value)) return value;
      if (nestsDeeperThan(value, MAX_BODY_DEPTH)) throw new BadRequestException();
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}
