import { Module } from '@nestjs/common';
import { ApiModule } from './api/api.module';
import { AuthModule } from './auth/auth.module';
import { ConfigModule } from './config/config.module';
import { CorporaModule } from './corpora/corpora.module';
import { EnginesModule } from './engines/engines.module';
import { McpModule } from './mcp/mcp.module';
import { QuotasModule } from './quotas/quotas.module';
import { RedisModule } from './redis/redis.module';
import { WatchesModule } from './watches/watches.module';
import { TracingShutdown } from './telemetry/tracing-shutdown';
import { JsonLoggingModule } from '@orrery/runtime';

@Module({ imports: [JsonLoggingModule.forService('orrery-coordinator'), ConfigModule, RedisModule, AuthModule, QuotasModule, EnginesModule, CorporaModule, ApiModule, McpModule, WatchesModule], providers: [TracingShutdown] })
export class CoordinatorModule {}
