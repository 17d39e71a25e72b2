import type { McpServer } from '@modelcontextprotocol/server';
import { judgeStep, type StepJudgeInput, type StepJudgeModel } from '@orrery/decisions';
import { clipText, type EngineFactory, type JudgeInput as ModelJudgeInput } from '@orrery/engines';
import { type JudgeToolInput, JudgeToolInputSchema } from '@orrery/protocol';
import type { Principal } from '../auth/principal';
import type { CoordinatorConfig } from '../config/coordinator-config';
import type { JudgeCallLog } from './judge-call-log.service';
import { jsonResult } from './tool-results';

interface ModelJudge {
  judgeVerdict(input: ModelJudgeInput): Promise<{ signal: 'continue' | 'stop' | 'pivot'; confidence: number; reason: string }>;
}
const hasModelJudge = (e: unknown): e is ModelJudge => typeof (e as Partial<ModelJudge>)?.judgeVerdict === 'function';

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

/** The judge model, when an API key makes the Claude engine available: the run judge's model, asked about one step. */
export function stepJudgeModelOf(engines: EngineFactory): StepJudgeModel | undefined {
  if (!engines.config.ANTHROPIC_API_KEY) return undefined;
  const engine = engines.coordinator('anthropic');
  if (!hasModelJudge(engine)) return undefined;
  return async (input, { signal }) => {
    const actions = (input.recentActions ?? []).map((a) => (typeof a === 'string' ? a : `${a.action}${a.result !== undefined ? ` → ${clipText(a.result, 300)}` : ''}`));
    const pivots = (input.history ?? []).filter((h) => (typeof h === 'string' ? h : h.signal) === 'pivot').length;
    const v = await engine.judgeVerdict({
      goal: input.goal,
      round: input.step,
      lastActions: actions,
      yield: { newFindings: 0, newSources: 0 },
      stateSummary: input.stateSummary,
      signalHistory: { pivots },
      abortSignal: signal,
    });
    return { signal: v.signal, confidence: v.confidence, reason: v.reason };
  };
}

export interface JudgeToolDeps {
  principal: Principal;
  model: StepJudgeModel | undefined;
  config: Pick<CoordinatorConfig, 'JUDGE' | 'JUDGE_TIMEOUT_MS'>;
  log: JudgeCallLog;
}

/** `judge`: the stateless step judge for any agent loop. */
export function registerJudgeTool(server: McpServer, deps: JudgeToolDeps): void {
  server.registerTool(
    'judge',
    {
      description:
        'Continue, stop or pivot? A fast, stateless judge for one step of any agent loop. Rules first (step budget, repeated actions, steps without new information, pivot cooldown and cap from history); a judge model only when the rules are unsure and the server has a key. A judge model that times out counts as continue.',
      inputSchema: JudgeToolInputSchema,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const input = toStepJudgeInput(args);
      const started = performance.now();
      const v = await judgeStep(input, { judgeEnabled: deps.config.JUDGE === 'on', timeoutMs: deps.config.JUDGE_TIMEOUT_MS, ...(deps.model ? { model: deps.model } : {}) });
      deps.log.record(deps.principal, input, v, performance.now() - started);
      return jsonResult({ signal: v.signal, confidence: v.confidence, level: v.level, reasons: v.reasons, state_version: v.stateVersion, rule: v.rule });
    },
  );
}
