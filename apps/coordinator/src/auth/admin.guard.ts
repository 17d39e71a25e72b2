import { type CanActivate, type ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { principalOf } from './request-principal';

/** Operator routes (metrics): admin keys only, or the local user in keyless mode. */
@Injectable()
export class AdminGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    if (principalOf(ctx.switchToHttp().getRequest<Request>()).admin) return true;
    throw new ForbiddenException('this route needs an admin key (ADMIN_API_KEYS)');
  }
}
