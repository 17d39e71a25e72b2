import { Global, Module } from '@nestjs/common';
import { AdminGuard } from './admin.guard';
import { ApiKeys } from './api-keys';
import { AuthFailures } from './auth-failures';
import { AuthMiddleware } from './auth.middleware';
import { LargeBodiesMiddleware } from '../quotas/large-bodies.middleware';
import { RequestRateMiddleware } from '../quotas/request-rate.middleware';

/** Who is calling and how often: keys, the principal they resolve to, the failed-auth throttle, the per-key request meter. Every surface uses it. */
@Global()
@Module({ providers: [ApiKeys, AuthFailures, AuthMiddleware, RequestRateMiddleware, LargeBodiesMiddleware, AdminGuard], exports: [ApiKeys, AuthFailures, AuthMiddleware, RequestRateMiddleware, LargeBodiesMiddleware, AdminGuard] })
export class AuthModule {}
