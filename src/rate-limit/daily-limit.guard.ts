import { Injectable } from '@nestjs/common';
import { ThrottlerException, ThrottlerGuard, ThrottlerRequest } from '@nestjs/throttler';
import type { ServerResponse } from 'node:http';
import { rateLimitMessage } from '../common/error-messages';
import { setRateLimitHeaders } from './rate-limit-headers';

/**
 * The throttler guard with the contract's answers: rate-limit headers on every counted request,
 * the 429 included, and the message naming the configured limit.
 */
@Injectable()
export class DailyLimitGuard extends ThrottlerGuard {
  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, blockDuration, getTracker, generateKey } = request;
    const { req, res } = this.getRequestResponse(context);
    const name = throttler.name ?? 'default';
    const key = generateKey(context, await getTracker(req, context), name);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    setRateLimitHeaders(res as ServerResponse, limit, record);
    if (record.isBlocked) throw new ThrottlerException(rateLimitMessage(limit));
    return true;
  }
}
