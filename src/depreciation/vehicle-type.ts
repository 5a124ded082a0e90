/** Exactly as a client sends them (docs/contract.md, "Request"). */
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
