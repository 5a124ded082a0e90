import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { errorResponse } from '../common/error-response.dto';
import {
  CONTENT_CODINGS_TEXT,
  UNSUPPORTED_CONTENT_ENCODING_MESSAGE,
} from '../common/error-messages';
import { BODY_LIMIT_BYTES } from '../common/error-responses';
import { rateLimitHeaderDocs } from '../rate-limit/rate-limit-headers.docs';
import { CalculateDepreciationDto } from './dto/calculate-depreciation.dto';
import { DepreciationResponseDto } from './dto/depreciation-response.dto';

const RATE_LIMIT_HEADER_DOCS = rateLimitHeaderDocs();

const SEDAN = {
  purchaseYear: 2020,
  purchasePrice: 25000,
  vehicleType: 'sedan',
  currentMileage: 50000,
};

const EXAMPLES = {
  sedan: { summary: 'A 2020 sedan with 50,000 miles', value: SEDAN },
  projection: {
    summary: 'The same sedan, with the next 5 years projected',
    value: { ...SEDAN, projectionYears: 5 },
  },
};

/** POST /api/depreciate in the OpenAPI document: its body, examples and every answer. */
export const ApiDepreciate = (): MethodDecorator =>
  applyDecorators(
    ApiOperation({
      summary: 'Calculate the depreciation of a vehicle',
      description:
        'Current value, total and monthly depreciation, and a breakdown for every calendar year from ' +
        'the purchase year to the current UTC year; with `projectionYears`, the value for each of the ' +
        'next years too. Counted against the daily limit (once, projection or not), valid or not.',
    }),
    ApiBody({ type: CalculateDepreciationDto, examples: EXAMPLES }),
    ApiOkResponse({
      type: DepreciationResponseDto,
      description: 'The valuation.',
      headers: RATE_LIMIT_HEADER_DOCS,
    }),
    ApiResponse({
      ...errorResponse(400),
      description:
        'A field rule broken, an unknown field, malformed JSON, or a body that is not an object. ' +
        'Counted, with the rate-limit headers, unless the body parser refused it before routing ' +
        '(malformed JSON, or JSON that is neither an object nor an array, such as `null` or `2020`).',
      headers: RATE_LIMIT_HEADER_DOCS,
    }),
    ApiResponse({
      ...errorResponse(413),
      description: `Body over ${BODY_LIMIT_BYTES / 1024} KiB. Refused before counting: no rate-limit headers.`,
    }),
    ApiResponse({
      ...errorResponse(415),
      description:
        'Content-Type is not application/json: counted, with the rate-limit headers. Or a ' +
        `Content-Encoding other than ${CONTENT_CODINGS_TEXT}, or several stacked: refused ` +
        `before counting, no rate-limit headers, message "${UNSUPPORTED_CONTENT_ENCODING_MESSAGE}".`,
      headers: RATE_LIMIT_HEADER_DOCS,
    }),
  );
