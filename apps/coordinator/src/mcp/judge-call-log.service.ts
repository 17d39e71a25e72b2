import { Inject, Injectable, Logger } from '@nestjs/common';
import type { StepJudgeInput, StepJudgeVerdict } from '@orrery/decisions';
import { clipText } from '@orrery/protocol';
import type { Decision, TokenUsage } from '@orrery/protocol';
import type { RedisClient } from '@orrery/runtime';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';
import type { Principal } from '../auth/principal';
import { tokensOf } from '../budget/tokens-of';

/** The newest this many judge calls are kept. */
const KEPT_CALLS = 10_000;

/**
 * Every `judge` tool call as a structured decision record (like a run's decisions): who asked, the input,
 * the verdict, its level, and the latency. Kept in a capped Redis stream, and written to the debug log.
 */
@Injectable()
export class JudgeCallLog {
  private readonly logger = new Logger('StepJudge');
  readonly key: string;
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) config: CoordinatorConfig,
  ) {
    this.key = `${config.QUEUE_PREFIX}:mcp:judge-calls`;
  }

  record(principal: Principal, input: StepJudgeInput, verdict: StepJudgeVerdict, latencyMs: number, usage?: TokenUsage): Decision {
    const decision: Decision = {
      runId: `mcp:${principal.id}`,
      ts: new Date().toISOString(),
      decisionType: 'step-judge',
      level: verdict.level,
      confidence: verdict.confidence,
      conclusion: clipText(`${verdict.signal}: ${verdict.reasons.join('; ')}`, 2000),
      signals: {
        signal: verdict.signal,
        rule: verdict.rule,
        route: verdict.route,
        ...(usage ? { tokens: tokensOf(usage), costUsd: usage.costUsd } : {}),
        latencyMs: Math.round(latencyMs * 1000) / 1000,
        step: input.step,
        recentActions: input.recentActions?.length ?? 0,
        history: input.history?.length ?? 0,
        input: clipText(JSON.stringify(loggedInput(input)), 8000),
      },
      stateVersion: verdict.stateVersion,
    };
    this.logger.debug(JSON.stringify(decision));
    void this.redis
      .xadd(this.key, 'MAXLEN', '~', String(KEPT_CALLS), '*', 'decision', JSON.stringify(decision))
      .catch((err: Error) => this.logger.warn(`judge call log: ${err.message}`));
    return decision;
  }
}

/** What of a call's input the log keeps: each text clipped first, so that a 1 MB call is not serialised whole to keep 8 kB of it. */
function loggedInput(input: StepJudgeInput): StepJudgeInput {
  const clip = (t: string) => clipText(t, 2000);
  return {
    ...input,
    goal: clip(input.goal),
    stateSummary: clip(input.stateSummary),
    ...(input.recentActions
      ? { recentActions: input.recentActions.slice(-10).map((a) => (typeof a === 'string' ? clip(a) : { ...a, action: clip(a.action), ...(a.result !== undefined ? { result: clip(a.result) } : {}) })) }
      : {}),
    ...(input.history ? { history: input.history.slice(-50) } : {}),
  };
}
