import { ArgumentMetadata, BadRequestException, ValidationPipe } from '@nestjs/common';
import { CalculateDepreciationDto } from '../depreciation/dto/calculate-depreciation.dto';
import { MAX_BODY_DEPTH, StrictValidationPipe } from './strict-validation.pipe';

const metadata: ArgumentMetadata = { type: 'body', metatype: CalculateDepreciationDto };

/** A body of `levels` nested objects, the body itself being the first. */
const nestedBody = (levels: number): Record<string, unknown> => {
  let body: Record<string, unknown> = {};
  for (let level = 1; level < levels; level++) body = { a: body };
  return body;
};

describe('StrictValidationPipe', () => {
  afterEach(() => jest.restoreAllMocks());

  it("takes a body its type's ValidationPrecheck accepts without class-validator, else validates", async () => {
    const validate = jest.spyOn(ValidationPipe.prototype, 'transform');
    const pipe = new StrictValidationPipe();
    const valid = { purchaseYear: 2020, purchasePrice: 25000, vehicleType: 'sedan' };
    await expect(pipe.transform(valid, metadata)).resolves.toBe(valid);
    expect(validate).not.toHaveBeenCalled();
    // What the precheck does not accept goes to class-validator, the authority on refusals.
    await expect(pipe.transform({ ...valid, purchasePrice: -1 }, metadata)).rejects.toThrow(
      BadRequestException,
    );
    expect(validate).toHaveBeenCalledTimes(1);
  });

  it(`validates a body of ${MAX_BODY_DEPTH} levels, refuses one more outright`, async () => {
    const validate = jest.spyOn(ValidationPipe.prototype, 'transform');
    const pipe = new StrictValidationPipe();

    await expect(pipe.transform(nestedBody(MAX_BODY_DEPTH + 1), metadata)).rejects.toThrow(
      BadRequestException,
    );
    expect(validate).not.toHaveBeenCalled();

    // Refused as well (`a` is no field), but by validation.
    await expect(pipe.transform(nestedBody(MAX_BODY_DEPTH), metadata)).rejects.toThrow(
      BadRequestException,
    );
    expect(validate).toHaveBeenCalledTimes(1);
  });

  it.each(['__proto__', 'constructor'])(
    'refuses a %s key, which class-transformer would drop before the whitelist sees it',
    async (key) => {
      const body = JSON.parse(
        `{"purchaseYear":2020,"purchasePrice":1,"vehicleType":"ev","${key}":{}}`,
      ) as unknown;
      await expect(new StrictValidationPipe().transform(body, metadata)).rejects.toThrow(
        BadRequestException,
      );
    },
  );
});
