import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from './principal';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the auth middleware on every request it lets through; absent on open routes without a key. */
    principal?: Principal;
  }
}

/** The caller of an authenticated route. */
export function principalOf(req: Request): Principal {
  if (!req.principal) throw new Error('no principal on the request: is the auth middleware mounted before this route?');
  return req.principal;
}

/** Injects the request's principal into a controller method. */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => principalOf(ctx.switchToHttp().getRequest<Request>()));

/** The caller where the route is open to anyone (health): undefined without a valid key. */
export const OptionalCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal | undefined => ctx.switchToHttp().getRequest<Request>().principal);
