import type { Type } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { JsonContentTypeGuard } from './common/json-content-type.guard';
import { StrictValidationPipe } from './common/strict-validation.pipe';
import { DepreciationController } from './depreciation/depreciation.controller';
import { nestGlobalEnhancers } from './edge/internals';
import { DailyLimitGuard } from './rate-limit/daily-limit.guard';

/**
 * What the service adds to a bare Nest route on every request, by name. Only the bench's variants
 * (bench/variant.ts) leave any out, through configureApp's `without`, to measure what each costs
 * (bench/README.md, "Where the time goes"); main.ts and the tests leave nothing out.
 * - `edge`: the whole edge (installEdge), which includes the next four;
 * - `parser-slices`, `request-id`, `request-log`, `metrics`: parts of the edge;
 * - `early-refusal`, `response-headers` (security and CORS): the Express middlewares;
 * - `json-body`: the service's body reader, replaced by Nest's default JSON parser;
 * - `daily-limit`: the global guard (counting and the rate-limit headers);
 * - `content-type-guard`, `validation-pipe`: the route's guard and the global pipe.
 */
export const ADDITIONS = [
  'edge',
  'parser-slices',
  'request-id',
  'request-log',
  'metrics',
  'early-refusal',
  'response-headers',
  'json-body',
  'daily-limit',
  'content-type-guard',
  'validation-pipe',
] as const;
export type Addition = (typeof ADDITIONS)[number];

const isAddition = (name: string): name is Addition =>
  (ADDITIONS as readonly string[]).includes(name);

/** The additions named in `names`; a name that is none is an error, not a silent full service. */
export function additionsNamed(names: readonly string[]): ReadonlySet<Addition> {
  const unknown = names.filter((name) => !isAddition(name));
  if (unknown.length > 0) {
    throw new Error(`Not an addition: ${unknown.join(', ')} (one of ${ADDITIONS.join(', ')})`);
  }
  return new Set(names as Addition[]);
}

const removeInstancesOf = (list: unknown[], type: Type<unknown>): void => {
  for (let i = list.length - 1; i >= 0; i--) if (list[i] instanceof type) list.splice(i, 1);
};

/**
 * Leaves out the Nest enhancers named in `without`, before the routes are set up (app.init()
 * reads them then). The route guard goes from the controller's metadata, for the whole process:
 * a bench variant is a process of its own.
 */
export function leaveOutEnhancers(app: NestExpressApplication, without: ReadonlySet<Addition>) {
  if (without.size === 0) return; // production: Nest's internals are not touched
  const enhancers = nestGlobalEnhancers(app);
  if (without.has('daily-limit')) removeInstancesOf(enhancers.guards, DailyLimitGuard);
  if (without.has('validation-pipe')) removeInstancesOf(enhancers.pipes, StrictValidationPipe);
  if (without.has('content-type-guard')) {
    const handler: unknown = Object.getOwnPropertyDescriptor(
      DepreciationController.prototype,
      'calculate',
    )?.value;
    const guards = (Reflect.getMetadata(GUARDS_METADATA, handler as object) ?? []) as unknown[];
    const others = guards.filter((guard) => guard !== JsonContentTypeGuard);
    Reflect.defineMetadata(GUARDS_METADATA, others, handler as object);
  }
}
