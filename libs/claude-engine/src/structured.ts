import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import type { JSONOutputFormat, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { type TokenUsage, zodIssues } from '@orrery/protocol';
import type { z } from 'zod';
import type { EngineDecision } from '@orrery/engine';
import { StructuredOutputError } from './errors';
import { addUsage, emptyUsage } from '@orrery/engine';
import { MAX_STREAMING_TOKENS, servedByFallback, textOf, type MessagesApi } from './messages-client';
import type { Effort } from './role-settings';

export interface StructuredCallConfig<S extends z.ZodType> {
  api: MessagesApi;
  model: string;
  system: string;
  user: string;
  schema: S;
  /** What the output is for (plan, judge verdict...): names it in decisions and errors. */
  purpose: string;
  /** A refusal is retried once on this model before it fails the call (refusals-and-fallback docs). */
  fallbackModel?: string;
  /** Cache the prompt, so a correction retry reads it back (default false). */
  cache?: boolean;
  /** How hard the model thinks; its thinking shares `maxTokens` with the answer. */
  effort?: Effort;
  maxTokens: number;
  /** Checks zod cannot make (quotes occur in sources, ids exist). Issues count as a validation failure. */
  check?: (value: z.infer<S>) => string[];
  /** After the one retry, accept a schema-valid value whose `check` still finds issues (the caller drops the bad parts). */
  acceptWithIssues?: boolean;
  signal?: AbortSignal;
}

export interface StructuredCallResult<T> {
  value: T;
  usage: TokenUsage;
  decisions: EngineDecision[];
  requests: number;
  /** `check` issues left when `acceptWithIssues` let the value through. */
  issues: string[];
  /** The model's reply text the value was parsed from, for decision logs. */
  raw: string;
}

/** The JSON schema sent in `output_config.format`, built by the SDK's zod helper (strict: additionalProperties false). */
export function outputFormatFor(schema: z.ZodType): JSONOutputFormat {
  const { schema: json } = zodOutputFormat(schema);
  return { type: 'json_schema', schema: json };
}

function formatIssues(error: z.ZodError): string[] {
  return zodIssues(error, 10);
}

/** The instruction that replaces `output_config.format` on a server without it. */
export const schemaInstruction = (format: JSONOutputFormat): string =>
  `Reply with only one JSON value, no prose and no code fence, matching this JSON schema:\n${JSON.stringify(format.schema)}`;

/** The JSON of a reply that wrapped it in a code fence anyway (local models often do). */
export function unfenced(text: string): string {
  const t = text.trim();
  const m = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(t);
  return m ? m[1]!.trim() : t;
}

const retryDecision = (purpose: string, why: string, signals: EngineDecision['signals']): EngineDecision => ({
  decisionType: 'structured-retry',
  level: 'L0',
  confidence: 1,
  conclusion: `${purpose}: ${why}`,
  signals,
});

/**
 * Asks for JSON matching `schema` (structured output), validates it with zod and `check`. The prompt is not cached:
 * it is read once, and a cache write would cost more than the rare correction retry saves.
 * Invalid → one retry carrying the validation errors. max_tokens → one retry with a larger limit; truncated JSON is never
 * accepted. Anything else (refusal, context window, a second failure) throws StructuredOutputError, which the engines
 * turn into a fallback.
 */
export async function structuredCall<S extends z.ZodType>(cfg: StructuredCallConfig<S>): Promise<StructuredCallResult<z.infer<S>>> {
  const format = outputFormatFor(cfg.schema);
  // A server without structured output gets the schema in the prompt; the reply is validated the same way.
  const schemaInPrompt = !cfg.api.profile.structuredOutput;
  const system = schemaInPrompt ? `${cfg.system}\n\n${schemaInstruction(format)}` : cfg.system;
  const messages: MessageParam[] = [{ role: 'user', content: cfg.user }];
  const usage = emptyUsage();
  const decisions: EngineDecision[] = [];
  let maxTokens = cfg.maxTokens;
  let model = cfg.model;
  let grew = false;
  let corrected = false;
  let requests = 0;
  const fail = (reason: StructuredOutputError['reason'], issues: string[]): never => {
    throw new StructuredOutputError(cfg.purpose, reason, issues, usage, decisions);
  };

  for (;;) {
    const { message: msg, usage: spent } = await cfg.api.send({
      model,
      system,
      messages,
      maxTokens,
      ...(schemaInPrompt ? {} : { outputFormat: format }),
      ...(cfg.effort ? { effort: cfg.effort } : {}),
      ...(cfg.fallbackModel ? { fallbackModel: cfg.fallbackModel } : {}),
      // One-shot: nothing reads its prefix back unless it fails, and a correction retry is the exception, so a
      // cache write (1.25×) on every first attempt would cost more than the rare retry saves (0.9× of its prompt),
      // unless the caller has seen its retries are not rare (RetryRate).
      cache: cfg.cache ?? false,
      label: cfg.purpose,
      signal: cfg.signal,
    });
    requests += 1;
    addUsage(usage, spent);
    // The API asked the fallback model itself (server-side fallback); a correction retry goes straight to it.
    const served = servedByFallback(msg.content);
    if (served) {
      decisions.push(fallbackDecision(cfg.purpose, served.from || model, served.to, msg.stop_reason === 'refusal' ? `the API asked ${served.to}, which refused too` : `the API asked ${served.to}, which answered`));
      model = served.to;
    }

    switch (msg.stop_reason) {
      case 'end_turn':
        break;
      case 'max_tokens':
        if (!grew && maxTokens < MAX_STREAMING_TOKENS) {
          grew = true;
          // A larger limit is streamed (MessagesApi.streams), so it may go past the non-streaming cap.
          const larger = Math.min(maxTokens * 2, MAX_STREAMING_TOKENS);
          decisions.push(retryDecision(cfg.purpose, `output cut off at max_tokens ${maxTokens}; retrying once with ${larger}`, { maxTokens, larger }));
          maxTokens = larger;
          continue;
        }
        return fail('truncated', [`output cut off at max_tokens ${maxTokens}; truncated JSON is not used`]);
      case 'refusal':
        // Asked again here only when the API did not try the fallback model (a model without server-side fallback).
        if (cfg.fallbackModel && model !== cfg.fallbackModel && !served) {
          decisions.push(fallbackDecision(cfg.purpose, model, cfg.fallbackModel, `asking ${cfg.fallbackModel}`, msg.stop_details?.category ?? null));
          model = cfg.fallbackModel;
          continue;
        }
        return fail('refusal', [`refused (${msg.stop_details?.category ?? 'no category'})`]);
      case 'model_context_window_exceeded':
        return fail('context-window', ['the request does not fit the model context window']);
      default:
        return fail('unexpected-stop', [`stop_reason ${String(msg.stop_reason)}`]);
    }

    const text = schemaInPrompt ? unfenced(textOf(msg.content)) : textOf(msg.content).trim();
    let issues: string[];
    let value: z.infer<S> | undefined;
    try {
      const parsed = cfg.schema.safeParse(JSON.parse(text));
      if (parsed.success) {
        value = parsed.data;
        issues = cfg.check?.(parsed.data) ?? [];
      } else {
        issues = formatIssues(parsed.error);
      }
    } catch (err) {
      issues = [`not valid JSON: ${err instanceof Error ? err.message : String(err)}`];
    }
    if (value !== undefined && issues.length === 0) return { value, usage, decisions, requests, issues: [], raw: text };

    if (!corrected) {
      corrected = true;
      decisions.push(retryDecision(cfg.purpose, `output failed validation; retrying once with the errors`, { issues: issues.slice(0, 10) }));
      messages.push({ role: 'assistant', content: text.length > 0 ? text : '(empty reply)' });
      messages.push({
        role: 'user',
        content: `Your reply failed validation:\n${issues.map((i) => `- ${i}`).join('\n')}\nReply again with only the corrected JSON, matching the schema.`,
      });
      continue;
    }
    if (value !== undefined && cfg.acceptWithIssues) return { value, usage, decisions, requests, issues, raw: text };
    return fail('invalid', issues);
  }
}

function fallbackDecision(purpose: string, from: string, to: string, outcome: string, category: string | null = null): EngineDecision {
  return {
    decisionType: 'model-fallback',
    level: 'L0',
    confidence: 1,
    conclusion: `${purpose}: ${from} refused${category ? ` (${category})` : ''}; ${outcome}`,
    signals: { from, to, category },
  };
}
