import { Module } from '@nestjs/common';
import { ApiModule } from './api/api.module';
import { AuthModule } from './auth/auth.module';
import { ConfigModule } from './config/config.module';
import { CorporaModule } from './corpora/corpora.module';
import { EnginesModule } from './engines/engines.module';
import { McpModule } from './mcp/mcp.module';
import { RedisModule } from './redis/redis.module';

@Module({ imports: [ConfigModule, RedisModule, AuthModule, EnginesModule, CorporaModule, ApiModule, McpModule] })
export class CoordinatorModule {}
