import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { WatchesModule } from '../watches/watches.module';
import { JudgeCallLog } from './judge-call-log.service';
import { McpSessions } from './mcp-sessions.service';
import { OrreryMcpServers } from './orrery-mcp-servers.service';

@Module({ imports: [RunsModule, WatchesModule], providers: [OrreryMcpServers, JudgeCallLog, McpSessions], exports: [OrreryMcpServers, JudgeCallLog, McpSessions] })
export class McpModule {}
