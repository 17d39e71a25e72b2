import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createMcpHandler, type McpHttpHandler, McpServer } from '@modelcontextprotocol/server';
import { EngineFactory } from '@orrery/engines';
import { type ModelJudge } from '@orrery/engine';
import type { Principal } from '../auth/principal';
import { tokensOf } from '../budget/tokens-of';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { DeploymentJudgeSwitch } from '../judge/deployment-judge-switch';
import { MetricsService } from '../metrics/metrics.service';
import { RunQuotas } from '../quotas/run-quotas.service';
import { RunStreamsService } from '../runs/run-streams.service';
import { RunsService } from '../runs/runs.service';
import { registerCorpusTools } from './corpus-tools';
import { JudgeCallLog } from './judge-call-log.service';
import { registerJudgeTool } from './judge-tool';
import { registerReportExports } from './report-exports';
import { registerResearchTools } from './research-tools';
import { RunWaitingService } from '../breaker/run-waiting.service';
import { registerRunResources } from './run-resources';
import { registerWatchTools } from './watch-tools';
import { WatchesService } from '../watches/watches.service';

export const MCP_SERVER_INFO = { name: 'orrery', version: '0.1.0' } as const;

/** One MCP server per caller (per HTTP request, or per session): every tool acts as that principal, through the same services as REST. */
@Injectable()
export class OrreryMcpServers implements OnApplicationShutdown {
  private readonly judgeModel: ModelJudge | undefined;
  private readonly logger = new Logger('MCP');
  private handler: McpHttpHandler | undefined;
  constructor(
    private readonly runs: RunsService,
    private readonly streams: RunStreamsService,
    private readonly engines: EngineFactory,
    private readonly judgeLog: JudgeCallLog,
    private readonly judgeSwitch: DeploymentJudgeSwitch,
    private readonly quotas: RunQuotas,
    private readonly metrics: MetricsService,
    private readonly waiting: RunWaitingService,
    private readonly watches: WatchesService,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {
    this.judgeModel = engines.judgeModel();
  }

  /** `session`: the server lives in an MCP session, so it may ask its client something mid-call (a plan to approve). */
  create(principal: Principal, opts: { session?: boolean } = {}): McpServer {
    const server = new McpServer(MCP_SERVER_INFO, {
      instructions: 'Orrery researches a topic with a hub of subagents and returns a report whose every claim cites a retrieved source. Start with research (wait: true for the report), or search/fetch a corpus; judge tells an agent loop whether to continue, stop or pivot.',
    });
    registerResearchTools(server, { principal, runs: this.runs, streams: this.streams, waiting: this.waiting, session: opts.session ?? false });
    registerJudgeTool(server, {
      principal,
      judge: this.judgeModel,
      modelJudging: () => this.judgeSwitch.modelJudging(this.config.JUDGE),
      spend: { hasRoom: () => this.quotas.hasSpendRoom(principal), charge: (u) => this.quotas.chargeSpend(principal.id, { tokens: tokensOf(u), costUsd: u.costUsd }) },
      config: this.config,
      log: this.judgeLog,
      onJudged: (v, seconds) => this.metrics.judged('mcp', { signal: v.signal, level: v.level, seconds, timedOut: v.rule === 'judge-model-timeout' }),
    });
    registerCorpusTools(server, this.engines);
    registerWatchTools(server, principal, this.watches);
    registerRunResources(server, principal, this.runs);
    registerReportExports(server, principal, this.runs);
    return server;
  }

  /** The Streamable HTTP handler: stateless, a fresh server per request for the principal the request carries. */
  httpHandler(): McpHttpHandler {
    this.handler ??= createMcpHandler(
      (ctx) => {
        const principal = ctx.authInfo?.extra?.principal as Principal | undefined;
        if (!principal) throw new Error('MCP request without a principal: is the auth middleware mounted before /mcp?');
        return this.create(principal);
      },
      { onerror: (err) => this.logger.warn(err.message) },
    );
    return this.handler;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.handler?.close();
  }
}
