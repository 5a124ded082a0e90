import {
  CanActivate,
  ExecutionContext,
  Injectable,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { Request } from 'express';

/** A `charset` parameter other than UTF-8 (JSON between systems is UTF-8: RFC 8259, section 8.1). */
const OTHER_CHARSET = /;\s*charset\s*=\s*(?!"?utf-8"?\s*(?:;|$))/i;

/**
 * Whether a Content-Type header names JSON in UTF-8: `application/json`, with parameters, a
 * `charset` only if it is UTF-8. The body parser reads only such bodies; anything else reaches this
 * guard unread and gets its 415 here, counted like every routed request.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semicolon = header.indexOf(';');
  const mediaType = semicolon === -1 ? header : header.slice(0, semicolon);
  return mediaType.trim().toLowerCase() === 'application/json' && !OTHER_CHARSET.test(header);
}

/**
 * Refuses a body that is not JSON with 415. A route guard, so it runs after the daily limit
 * (the request is counted) and before validation.
 */
@Injectable()
export class JsonContentTypeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    if (!isJsonContentType(request.headers['content-type'])) {
      throw new UnsupportedMediaTypeException();
    }
    return true;
  }
}
