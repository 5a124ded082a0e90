import {
  CanActivate,
  ExecutionContext,
  Injectable,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { Request } from 'express';
import { isJsonRequest } from './json-body';

/**
 * Refuses a body that is not JSON with 415. A route guard, so it runs after the daily limit
 * (the request is counted) and before validation.
 */
@Injectable()
export class JsonContentTypeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    if (!isJsonRequest(request)) {
      throw new UnsupportedMediaTypeException();
    }
    return true;
  }
}
