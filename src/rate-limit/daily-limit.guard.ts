import { ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { ThrottlerException, ThrottlerGuard } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { rateLimitMessage } from '../common/error-messages';
import { DailyLimitRecord, DailyLimitStorage } from './daily-limit.storage';
import { DAY_MS } from './daily-window';
import { EarlyRefusal } from './early-refusal';
import { setRateLimitHeaders } from './rate-limit-headers';

/** The metadata key of `@SkipThrottle()` (@nestjs/throttler does not export its constant). */
const THROTTLER_SKIP = 'THROTTLER:SKIP';

/**
 * The throttler guard for one daily budget per client across the whole API. It keeps the stock
 * guard's configuration (ThrottlerModule options with their `getTracker` and `generateKey`, the
 * storage token, `@SkipThrottle()`) but does per request only what a daily window needs: whether a
 * route is skipped is decided once per handler, a storage that can count at once is not awaited
 * twice, and a refusal is one prepared exception. Every counted answer, the 429 included, carries
 * the rate-limit headers. A refusal also shows EarlyRefusal the route, so the client's next
 * requests there are refused before their bodies are read.
 */
@Injectable()
export class DailyLimitGuard extends ThrottlerGuard {
  private name = 'default';
  private limit = 0;
  private refusal = new ThrottlerException();
  private readonly skipped = new Map<unknown, boolean>();
  /** Refuses the clients this guard has found over the limit before their bodies are read. */
  @Optional() @Inject(EarlyRefusal) private readonly early?: EarlyRefusal;

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    const [daily] = this.throttlers;
    if (this.throttlers.length !== 1 || typeof daily.limit !== 'number') {
      throw new Error('DailyLimitGuard needs exactly one throttler with a numeric limit');
    }
    this.name = daily.name ?? 'default';
    this.limit = daily.limit;
    this.refusal = new ThrottlerException(rateLimitMessage(this.limit));
    this.early?.enable(this.limit, this.storageService);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isSkipped(context)) return true;
    const http = context.switchToHttp();
    const { getTracker, generateKey } = this.commonOptions;
    const request = http.getRequest<Request>();
    const key = generateKey!(context, await getTracker!(request, context), this.name);
    const record = await this.count(key);
    setRateLimitHeaders(http.getResponse<Response>(), this.limit, record);
    if (record.isBlocked) {
      this.early?.learn(request, key);
      throw this.refusal;
    }
    return true;
  }

  private count(key: string): DailyLimitRecord | Promise<DailyLimitRecord> {
    const storage = this.storageService;
    return storage instanceof DailyLimitStorage
      ? storage.hit(key, this.limit)
      : storage.increment(key, DAY_MS, this.limit, DAY_MS, this.name);
  }

  /** `@SkipThrottle()` on the handler or its controller, looked up once per handler. */
  private isSkipped(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let skipped = this.skipped.get(handler);
    if (skipped === undefined) {
      skipped =
        this.reflector.getAllAndOverride<boolean>(THROTTLER_SKIP + this.name, [
          handler,
          context.getClass(),
        ]) === true;
      this.skipped.set(handler, skipped);
    }
    return skipped;
  }
}
