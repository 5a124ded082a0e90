import {
  CanActivate,
  ExecutionContext,
  Injectable,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { Request } from 'express';

/** Whether a Content-Type header names JSON (`application/json`, parameters such as charset allowed). */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semicolon = header.indexOf(';');
  const mediaType = semicolon === -1 ? header : header.slice(0, semicolon);
  return mediaType.trim().toLowerCase() === 'application/json';
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
