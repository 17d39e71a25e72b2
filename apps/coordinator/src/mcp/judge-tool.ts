import type { McpServer } from '@modelcontextprotocol/server';
import { actionFacts, judgeStep, lastNonContinueStep, pivotHistory, type StepJudgeInput, type StepJudgeModel, type StepJudgeVerdict } from '@orrery/decisions';
import { clipText, type JudgeToolInput, JudgeToolInputSchema, type TokenUsage } from '@orrery/protocol';
import { type ModelJudge } from '@orrery/engine';
import type { Principal } from '../auth/principal';
import type { CoordinatorConfig } from '../config/coordinator-config';
import type { JudgeCallLog } from './judge-call-log.service';
import { jsonResult } from './tool-results';

export function toStepJudgeInput(a: JudgeToolInput): StepJudgeInput {
  return {
    goal: a.goal,
    step: a.step,
    stateSummary: a.state_summary,
    ...(a.recent_actions
      ? {
          recentActions: a.recent_actions.map((x) =>
            typeof x === 'string' ? x : { action: x.action, ...(x.result !== undefined ? { result: x.result } : {}), ...(x.new_information !== undefined ? { newInformation: x.new_information } : {}) },
          ),
        }
      : {}),
    ...(a.history ? { history: a.history } : {}),
    ...(a.state_version !== undefined ? { stateVersion: a.state_version } : {}),
    ...(a.max_steps !== undefined ? { maxSteps: a.max_steps } : {}),
  };
}

/** The judge model asked about one step, told the caller's real state: its actions, what they brought, its pivots. */
export function stepJudgeModel(judge: ModelJudge, onUsage: (usage: TokenUsage) => void): StepJudgeModel {
  return async (input, { signal }) => {
    const facts = actionFacts(input);
    const actions = (input.recentActions ?? []).map((a) => (typeof a === 'string' ? a : `${a.action}${a.result !== undefined ? ` → ${clipText(a.result, 300)}` : ''}${a.newInformation === false ? ' (nothing new)' : ''}`));
    const last = lastNonContinueStep(input);
    const v = await judge.judgeVerdict({
      goal: input.goal,
      round: input.step,
      lastActions: actions,
      yield: { actionsWithNewInformation: facts.withNewInformation, actions: facts.actionsSeen, idleSteps: facts.idleSteps },
      stateSummary: input.stateSummary,
      signalHistory: {
        ...(last ? { lastNonContinue: { signal: last.signal, roundsAgo: input.step - last.step } } : {}),
        pivots: pivotHistory(input).pivotCount,
      },
      abortSignal: signal,
    });
    onUsage(v.usage);
    return { signal: v.signal, confidence: v.confidence, reason: v.reason };
  };
}

export interface JudgeToolDeps {
  principal: Principal;
  /** The deployment's judge model, when an engine declares one. */
  judge: ModelJudge | undefined;
  /** JUDGE and the deployment's kill switch, read before every call: off means rules only. */
  modelJudging: () => Promise<boolean>;
  /** The caller's quotas: whether a model call still fits today, and what one spent. */
  spend: { hasRoom: () => Promise<boolean>; charge: (usage: TokenUsage) => void };
  config: Pick<CoordinatorConfig, 'JUDGE_TIMEOUT_MS'>;
  log: JudgeCallLog;
  /** Every judgement, for the metrics. */
  onJudged?: (verdict: StepJudgeVerdict, seconds: number) => void;
}

/** `judge`: the stateless step judge for any agent loop. */
export function registerJudgeTool(server: McpServer, deps: JudgeToolDeps): void {
  server.registerTool(
    'judge',
    {
      description:
        'Continue, stop or pivot? A fast, stateless judge for one step of any agent loop. Rules first (step budget, repeated actions, steps without new information, pivot cooldown and cap from history); a judge model only when the rules are unsure and the server has a key. Below confidence 0.5 a verdict is not acted on (route "escalate"). A judge model that times out counts as continue.',
      inputSchema: JudgeToolInputSchema,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const input = toStepJudgeInput(args);
      const started = performance.now();
      const judging = deps.judge !== undefined && (await deps.modelJudging()) && (await deps.spend.hasRoom());
      const usage: TokenUsage[] = [];
      const model = judging ? stepJudgeModel(deps.judge!, (u) => (usage.push(u), deps.spend.charge(u))) : undefined;
      const v = await judgeStep(input, { judgeEnabled: judging, timeoutMs: deps.config.JUDGE_TIMEOUT_MS, ...(model ? { model } : {}) });
      const ms = performance.now() - started;
      deps.log.record(deps.principal, input, v, ms, usage[0]);
      deps.onJudged?.(v, ms / 1000);
      return jsonResult({ signal: v.signal, confidence: v.confidence, level: v.level, route: v.route, reasons: v.reasons, state_version: v.stateVersion, rule: v.rule });
    },
  );
}
