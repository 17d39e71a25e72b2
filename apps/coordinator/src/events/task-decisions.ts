import { clipText } from '@orrery/protocol';
import { type EngineDecision } from '@orrery/engine';
import type { TaskProgress } from '@orrery/protocol';
import { createHash } from 'node:crypto';
import type { DecisionLogService } from './decision-log.service';

export const DECISION_STAGE_PREFIX = 'decision:';

/**
 * A decision a subagent reported through job progress (stage `decision:<type>`: fallback, idle-stop, redaction,
 * continuation-cap, iteration-cap, refusal, truncated, context-window-finish, ...), as the coordinator logs it, with a
 * deterministic key: the same report delivered twice (two coordinator replicas, a re-sent event) is logged once.
 * Undefined when the progress is not a decision.
 */
export function taskDecision(jobId: string, round: number, progress: TaskProgress): { key: string; decision: EngineDecision } | undefined {
  if (!progress.stage.startsWith(DECISION_STAGE_PREFIX)) return undefined;
  const type = clipText(progress.decision?.decisionType ?? progress.stage.slice(DECISION_STAGE_PREFIX.length), 60);
  if (!type) return undefined;
  const reported = progress.decision;
  const decision: EngineDecision = {
    decisionType: type,
    level: reported?.level ?? 'L0',
    confidence: reported?.confidence ?? 1,
    conclusion: clipText(reported?.conclusion ?? progress.message, 2000),
    signals: { ...reported?.signals, taskId: jobId, round, origin: 'subagent' },
  };
  const digest = createHash('sha1').update(`${type}\n${decision.conclusion}`).digest('hex').slice(0, 12);
  return { key: `task:${jobId}:${type}:${digest}`, decision };
}

/** Logs the decisions a task's result carries (its progress lines, again), under the same keys as the live path. */
export async function logReportedDecisions(
  log: DecisionLogService,
  runId: string,
  taskId: string,
  round: number,
  reported: readonly TaskProgress[] = [],
  onLogged?: (d: EngineDecision) => void,
): Promise<void> {
  await Promise.all(
    reported.map(async (p) => {
      const d = taskDecision(taskId, round, p);
      if (d && (await log.log(runId, d.key, d.decision))) onLogged?.(d.decision);
    }),
  );
}
