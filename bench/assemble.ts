import type { Type } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createNestApp } from '../src/app.factory';
import { AppModule } from '../src/app.module';
import {
  applyHttpSettings,
  appObservers,
  installEdgeFor,
  requestMiddlewares,
  serveDocs,
} from '../src/app.setup';
import { inOrder } from '../src/common/in-order';
import { BODY_LIMIT_BYTES } from '../src/common/error-responses';
import { JsonContentTypeGuard } from '../src/common/json-body';
import { StrictValidationPipe } from '../src/common/strict-validation.pipe';
import { DepreciationController } from '../src/depreciation/depreciation.controller';
import { DailyLimitGuard } from '../src/rate-limit/daily-limit.guard';

/**
 * What the service adds to a bare Nest route on every request, by name: the bench's variants
 * (bench/variant.ts) leave any out to measure what each costs (bench/README.md, "Where the time
 * goes"). The service itself has no switch for any of them: the bench assembles each variant from
 * the application's public pieces (app.setup.ts's steps), so none of this reaches dist/.
 * - `edge`: the whole edge (installEdge), which includes the next two;
 * - `request-log`, `metrics`: the edge's observers;
 * - `early-refusal`, `response-headers` (security and CORS): the Express middlewares;
 * - `json-body`: the service's body reader, replaced by Nest's default JSON parser;
 * - `daily-limit`: the global guard (counting and the rate-limit headers);
 * - `content-type-guard`, `validation-pipe`: the route's guard and the global pipe.
 */
export const ADDITIONS = [
  'edge',
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

/**
 * The lists Nest keeps of an application's global guards and pipes (APP_GUARD and APP_PIPE
 * providers included), read when app.init() sets up the routes: Nest's ApplicationConfig
 * (`app.config`, checked on Nest 12.5.1). Bench code only: the service never changes them.
 */
function nestGlobalEnhancers(app: object): { guards: unknown[]; pipes: unknown[] } {
  const config = (app as { config?: { getGlobalGuards?: unknown; getGlobalPipes?: unknown } })
    .config;
  if (
    typeof config?.getGlobalGuards !== 'function' ||
    typeof config.getGlobalPipes !== 'function'
  ) {
    throw new Error('A Nest application has no `config` (checked on Nest 12.5.1)');
  }
  return {
    guards: (config.getGlobalGuards as () => unknown[]).call(config),
    pipes: (config.getGlobalPipes as () => unknown[]).call(config),
  };
}

const removeInstancesOf = (list: unknown[], type: Type<unknown>): void => {
  for (let i = list.length - 1; i >= 0; i--) if (list[i] instanceof type) list.splice(i, 1);
};

/**
 * Leaves out the Nest enhancers named in `without`, before the routes are set up. The route guard
 * goes from the controller's metadata, for the whole process: a bench variant is a process of its
 * own.
 */
function leaveOutEnhancers(app: NestExpressApplication, without: ReadonlySet<Addition>): void {
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

/** The edge with the observers `without` leaves, unless it leaves out the edge itself. */
function edgeOf(app: NestExpressApplication, without: ReadonlySet<Addition>): void {
  if (without.has('edge')) return;
  const [log, metrics] = appObservers(app);
  const observers = [without.has('request-log') ? undefined : log];
  observers.push(without.has('metrics') ? undefined : metrics);
  installEdgeFor(
    app,
    {},
    observers.filter((observer) => observer !== undefined),
  );
}

/**
 * The service as configureApp (src/app.setup.ts) assembles it, step by step, less the additions in
 * `without`. With nothing left out it is the same application: the ablation's first row and
 * dist/main.js must agree.
 */
export async function assembleVariant(
  without: ReadonlySet<Addition>,
): Promise<NestExpressApplication> {
  const app = await createNestApp(AppModule);
  applyHttpSettings(app);
  edgeOf(app, without);
  // One layer, as configureApp mounts them (inOrder); Nest's parser, for `json-body`, after it.
  const middlewares = Object.entries(requestMiddlewares(app))
    .filter(([name]) => !without.has(name as Addition))
    .map(([, middleware]) => middleware);
  if (middlewares.length > 0) app.use(inOrder(...middlewares));
  if (without.has('json-body')) app.useBodyParser('json', { limit: BODY_LIMIT_BYTES });
  serveDocs(app);
  if (without.size > 0) leaveOutEnhancers(app, without);
  return app;
}
