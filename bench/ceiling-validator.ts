import type { CalculateDepreciationDto as DepreciationInput } from '../src/depreciation/dto/calculate-depreciation.dto';
import { dist } from './project';

/**
 * The ceilings validate with the service's own hand-written precheck (the DTO's rules, held to the
 * decorators by a property test), so they cannot drift from the contract. The upper bound of
 * purchaseYear (the current UTC year) stays with DepreciationService, as in the service.
 */
const { isValidDepreciationBody } = dist.dto();

/** The valid request, or undefined for any broken rule (answered 400). */
export function validateRequest(body: unknown): DepreciationInput | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  return isValidDepreciationBody(body as Record<string, unknown>)
    ? (body as DepreciationInput)
    : undefined;
}
