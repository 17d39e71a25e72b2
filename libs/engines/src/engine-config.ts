import { z } from 'zod';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

/** Engine settings shared by the coordinator and the subagents, validated at startup. */
export const EngineConfigSchema = z.object({
  ENGINE: z.enum(['auto', 'corpus', 'anthropic', 'simulated']).default('auto'),
  DEFAULT_CORPUS: z.string().default('sotu'),
  CORPORA: z.string().default(''),
  SIMULATED_LATENCY_MS: int(0),
  SIMULATED_SUBTOPICS: int(4, 1),
  SIMULATED_ROUNDS: int(2, 1),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.string().optional(),
  ANTHROPIC_MODEL: z.string().default('claude-sonnet-4-5'),
  ANTHROPIC_SUBAGENT_MODEL: z.string().default('claude-sonnet-4-5'),
  ANTHROPIC_JUDGE_MODEL: z.string().default('claude-haiku-4-5'),
  ANTHROPIC_MAX_RETRIES: int(4),
  WEB_SEARCH: z.enum(['on', 'off']).default('on'),
  WEB_SEARCH_MAX_USES: int(5, 1),
  WEB_SEARCH_ALLOWED_DOMAINS: z.string().default(''),
  WEB_SEARCH_BLOCKED_DOMAINS: z.string().default(''),
});
export type EngineConfig = z.infer<typeof EngineConfigSchema>;

export function loadEngineConfig(env: NodeJS.ProcessEnv = process.env): EngineConfig {
  const parsed = EngineConfigSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid engine configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}
