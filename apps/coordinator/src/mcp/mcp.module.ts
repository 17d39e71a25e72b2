import { Module } from '@nestjs/common';
import { BreakerModule } from '../breaker/breaker.module';
import { EnginesModule } from '../engines/engines.module';
import { JudgeModule } from '../judge/judge.module';
import { MetricsModule } from '../metrics/metrics.module';
import { QuotasModule } from '../quotas/quotas.module';
import { RunsModule } from '../runs/runs.module';
import { WatchesModule } from '../watches/watches.module';
import { JudgeCallLog } from './judge-call-log.service';
import { McpSessions } from './mcp-sessions.service';
import { OrreryMcpServers } from './orrery-mcp-servers.service';

@Module({
  imports: [RunsModule, WatchesModule, BreakerModule, EnginesModule, JudgeModule, MetricsModule, QuotasModule],
  providers: [OrreryMcpServers, JudgeCallLog, McpSessions],
  exports: [OrreryMcpServers, JudgeCallLog, McpSessions],
})
export class McpModule {}
