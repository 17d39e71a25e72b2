import { Module } from '@nestjs/common';
import { ApiModule } from './api/api.module';
import { AuthModule } from './auth/auth.module';
import { ConfigModule } from './config/config.module';
import { EnginesModule } from './engines/engines.module';
import { RedisModule } from './redis/redis.module';

@Module({ imports: [ConfigModule, RedisModule, AuthModule, EnginesModule, ApiModule] })
export class CoordinatorModule {}
