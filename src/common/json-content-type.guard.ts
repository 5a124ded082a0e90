import {
  CanActivate,
  ExecutionContext,
  Injectable,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { Request } from 'express';
import { isJsonRequest } from './json-body';

/** A route guard, so a 415 comes after the daily limit (counted) and before validation. */
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
