import { z } from 'zod';
import { DEFAULT_JUDGE_TIMEOUT_MS } from '../thresholds';

/** The judge's switches from the environment, validated: JUDGE=on|off, JUDGE_TIMEOUT_MS. */
export const StepJudgeSettingsSchema = z.object({
  JUDGE: z.enum(['on', 'off']).default('on'),
  JUDGE_TIMEOUT_MS: z.coerce.number().int().min(1).default(DEFAULT_JUDGE_TIMEOUT_MS),
});

export interface StepJudgeSettings {
  judgeEnabled: boolean;
  timeoutMs: number;
}

/** Throws a ZodError naming the variable when one is malformed; an empty variable means unset. */
export function stepJudgeSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): StepJudgeSettings {
  const s = StepJudgeSettingsSchema.parse({ JUDGE: env.JUDGE || undefined, JUDGE_TIMEOUT_MS: env.JUDGE_TIMEOUT_MS || undefined });
  return { judgeEnabled: s.JUDGE === 'on', timeoutMs: s.JUDGE_TIMEOUT_MS };
}
