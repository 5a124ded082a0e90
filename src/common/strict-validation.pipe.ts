import { ArgumentMetadata, BadRequestException, Injectable, ValidationPipe } from '@nestjs/common';
import { INVALID_INPUT_MESSAGE } from './error-messages';
import { precheckOf } from './validation-precheck';

/** Keys Nest's ValidationPipe deletes before validating, so class-validator never sees them. */
const STRIPPED_KEYS = ['__proto__', 'prototype', 'constructor'];
const hasOwn = (value: object, key: string) => Object.prototype.hasOwnProperty.call(value, key);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The global ValidationPipe with the contract's rules: strict JSON types (no conversion), unknown
 * fields refused, and one body for every failure. A body must be a JSON object: class-validator
 * would let an array through, and would never see `__proto__`, `prototype` or `constructor` keys
 * (Nest strips them silently): an unknown field is refused, whatever its name. A DTO with a
 * `@ValidationPrecheck` is accepted without class-validator when its precheck passes.
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
      exceptionFactory: () => new BadRequestException(INVALID_INPUT_MESSAGE),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && this.toValidate(metadata)) {
      if (!isPlainObject(value) || STRIPPED_KEYS.some((key) => hasOwn(value, key))) {
        throw new BadRequestException(INVALID_INPUT_MESSAGE);
      }
      if (metadata.metatype && precheckOf(metadata.metatype)?.(value)) return value;
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}
