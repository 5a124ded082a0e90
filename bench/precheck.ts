import * as dto from '../src/depreciation/dto/calculate-depreciation.dto';

/** The service's own precheck on a parsed body, for the reference servers: a JSON object it accepts. */
export const passesPrecheck = (body: unknown): body is dto.CalculateDepreciationDto =>
  typeof body === 'object' &&
  body !== null &&
  !Array.isArray(body) &&
  dto.isValidDepreciationBody(body as Record<string, unknown>);
