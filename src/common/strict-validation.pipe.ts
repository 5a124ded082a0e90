import { ArgumentMetadata, BadRequestException, Injectable, ValidationPipe } from '@nestjs/common';
import { INVALID_INPUT_MESSAGE } from './error-messages';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The global ValidationPipe with the contract's rules: strict JSON types (no conversion), unknown
 * fields refused, and one body for every failure. A body must be a JSON object: class-validator
 * would let an array through, and would never see a `__proto__` key (Nest strips it silently).
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
      if (!isPlainObject(value) || Object.prototype.hasOwnProperty.call(value, '__proto__')) {
        throw new BadRequestException(INVALID_INPUT_MESSAGE);
      }
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}
