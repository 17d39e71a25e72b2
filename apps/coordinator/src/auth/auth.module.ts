import { Module } from '@nestjs/common';
import { AdminGuard } from './admin.guard';
import { ApiKeys } from './api-keys';
import { AuthFailures } from './auth-failures';
import { AuthMiddleware } from './auth.middleware';

/** Who is calling: keys, the principal they resolve to, the failed-auth throttle. Every surface passes its middleware. */
@Module({ providers: [ApiKeys, AuthFailures, AuthMiddleware, AdminGuard], exports: [ApiKeys, AuthFailures, AuthMiddleware, AdminGuard] })
export class AuthModule {}
