import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { WatchesModule } from '../watches/watches.module';
import { JudgeCallLog } from './judge-call-log.service';
import { OrreryMcpServers } from './orrery-mcp-servers.service';

@Module({ imports: [RunsModule, WatchesModule], providers: [OrreryMcpServers, JudgeCallLog], exports: [OrreryMcpServers, JudgeCallLog] })
export class McpModule {}
