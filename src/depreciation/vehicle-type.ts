/** The nine vehicle types of docs/contract.md ("Request"), exactly as a client sends them (lowercase). */
export const VEHICLE_TYPES = [
  'sedan',
  'suv',
  'truck',
  'luxury',
  'economy',
  'sports',
  'ev',
  'motorcycle',
  'rv',
] as const;

export type VehicleType = (typeof VEHICLE_TYPES)[number];
