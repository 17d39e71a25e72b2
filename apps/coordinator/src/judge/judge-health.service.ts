import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { EngineFactory } from '@orrery/engines';
import { RunWaitingService } from '../breaker/run-waiting.service';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { MetricsService } from '../metrics/metrics.service';
import { DeploymentJudgeSwitch } from './deployment-judge-switch';
import { probeJudge } from './judge-probe';

/**
 * The judge model's health, seen before a run needs it: every JUDGE_PROBE_INTERVAL_MS this replica asks it for one
 * minimal verdict within a round decision's budget (JUDGE_TIMEOUT_MS) and exports the outcome (orrery_judge_healthy,
 * orrery_judge_probe_seconds), and the judge switch at each scrape (orrery_judge_enabled). No probe while the judge is
 * switched off or the provider's breaker is open: the breaker already says the provider is down, and a probe would
 * only wait behind it.
 */
@Injectable()
export class JudgeHealthService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JudgeHealthService.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly engines: EngineFactory,
    private readonly metrics: MetricsService,
    private readonly judgeSwitch: DeploymentJudgeSwitch,
    private readonly waiting: RunWaitingService,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  onModuleInit(): void {
    this.metrics.readJudgeSwitchWith(() => this.judgeSwitch.enabled());
  }

  onApplicationBootstrap(): void {
    if (!this.config.JUDGE_PROBE_INTERVAL_MS || !this.engines.judgeModel()) return;
    this.timer = setInterval(() => void this.probe(), this.config.JUDGE_PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One probe; undefined when none was sent (no judge model, switched off, provider down). */
  async probe(): Promise<boolean | undefined> {
    const judge = this.engines.judgeModel();
    if (!judge || this.config.JUDGE === 'off' || !(await this.judgeSwitch.enabled().catch(() => true))) return undefined;
    if (await this.waiting.outage()) return undefined;
    const result = await probeJudge(judge, this.config.JUDGE_TIMEOUT_MS);
    this.metrics.judgeProbed(result.ok, result.ms / 1000);
    if (!result.ok) this.logger.warn(`judge model probe failed after ${Math.round(result.ms)} ms: ${result.error}; round decisions fall back to the rules`);
    return result.ok;
  }
}
