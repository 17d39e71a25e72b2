import type { OutputConfig } from '@anthropic-ai/sdk/resources/messages';
import type { AgentRole } from './prompts';

export type Effort = NonNullable<OutputConfig['effort']>;

/**
 * How hard each role thinks (`output_config.effort`, the effort docs): the roles that decide what to research think
 * hard; those that classify, check or copy think little. The default models think by default (adaptive thinking,
 * "How it compares" on the model pages), so leaving effort unset would spend their default (medium or high) on a
 * yes/no verdict.
 */
export const ROLE_EFFORT: Record<AgentRole, Effort> = {
  planner: 'high',
  researcher: 'high',
  'gap-finder': 'medium',
  // The lead writes the report: the analysis is the product, so it thinks as hard as it plans.
  writer: 'high',
  // Matching sentences to quoted findings is reading, not reasoning.
  citer: 'low',
  judge: 'low',
  'coverage-critic': 'low',
  extractor: 'low',
};

/**
 * Room kept in `max_tokens` for thinking at each effort: thinking tokens count toward `max_tokens` (thinking docs,
 * "max_tokens"; whats-new-opus-5-5), so a limit sized for the answer alone stops at max_tokens, after being paid for.
 */
export const THINKING_ROOM: Record<Effort, number> = { low: 4_000, medium: 8_000, high: 16_000, xhigh: 32_000, max: 48_000 };

/** `max_tokens` for one request of a role: its answer plus the room its effort thinks in. */
export const maxTokensFor = (role: AgentRole, answerTokens: number): number => answerTokens + THINKING_ROOM[ROLE_EFFORT[role]];

/** A verdict's JSON: a signal, a confidence, one sentence. */
export const JUDGE_ANSWER_TOKENS = 512;
