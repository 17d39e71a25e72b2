import type Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlock,
  ContentBlockParam,
  Message,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
  ToolUnion,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages';
import type { TokenUsage } from '@orrery/protocol';
import type { EngineDecision } from '../engine';
import { asParams, orphanedServerToolUses, sendMessage, textOf } from './messages-client';
import { CONTINUE_AFTER_MAX_TOKENS, CONTINUE_AFTER_STOP_SEQUENCE, NUDGE_TEXT } from './prompts';
import { addUsage, emptyUsage } from './usage';

export interface ClientToolOutcome {
  content: string;
  isError?: boolean;
  /** Sources this call brought that the task had not seen: the health monitor's signal. */
  newSources: number;
}
export type ClientToolHandler = (input: unknown, call: ToolUseBlock) => Promise<ClientToolOutcome> | ClientToolOutcome;

export type LoopStatus =
  | 'completed' // end_turn
  | 'stop-sequence' // stop_sequence, configured to finish
  | 'truncated' // max_tokens after the allowed continuations
  | 'refused' // refusal
  | 'idle-stopped' // health monitor ended it
  | 'iteration-cap' // safety net
  | 'continuation-cap' // too many pause_turn continuations
  | 'context-exhausted' // model_context_window_exceeded and nothing left to compact
  | 'unexpected-stop'; // a stop_reason this loop does not know, or tool_use with no client tool call

export interface AgentLoopConfig {
  client: Anthropic;
  model: string;
  system: string;
  /** The conversation so far; the first message is the user's. Not mutated. */
  messages: MessageParam[];
  tools?: ToolUnion[];
  clientTools?: Record<string, ClientToolHandler>;
  maxTokens: number;
  /** pause_turn continuations allowed before the loop ends (logged). */
  maxContinuations: number;
  /** Requests allowed before the loop ends (safety net, logged). */
  maxIterations: number;
  /** Tool calls in a row without a new source before the one nudge; 0 disables the health monitor. Default 3. */
  idleThreshold?: number;
  stopSequences?: string[];
  /** What a `stop_sequence` stop means: finish (default) or ask the model to continue. */
  onStopSequence?: 'finish' | 'continue';
  /** Continuations after max_tokens before the result is marked truncated. Default 2. */
  maxTokensContinuations?: number;
  /** Compactions after model_context_window_exceeded before finishing with what is there. Default 2. */
  maxCompactions?: number;
  /** User messages with tool results (counted from the end) that compaction keeps intact. Default 1. */
  keepRecentToolResults?: number;
  /** Sees every response first; returns, per server tool result block in order, how many new sources it brought. */
  observe?: (message: Message) => number[];
  label: string;
  signal?: AbortSignal;
}

export interface LoopStats {
  requests: number;
  toolCalls: number;
  toolErrors: number;
  serverToolCalls: number;
  continuations: number;
  maxTokensContinuations: number;
  compactions: number;
  nudges: number;
  idleStops: number;
  iterationCapHits: number;
  continuationCapHits: number;
  refusals: number;
  truncated: number;
  contextExhausted: number;
}

export interface AgentLoopResult {
  status: LoopStatus;
  /** The full history as sent, plus the last assistant reply when it is complete. */
  messages: MessageParam[];
  /** Text of the last assistant reply. Not a completion signal: `status` is. */
  finalText: string;
  lastMessage?: Message;
  usage: TokenUsage;
  decisions: EngineDecision[];
  stats: LoopStats;
  refusal?: { category: string | null; explanation: string | null };
}

export const CLEARED_TOOL_RESULT = '[tool result cleared to free context; rely on your notes so far]';

const loopDecision = (decisionType: string, conclusion: string, signals: EngineDecision['signals']): EngineDecision => ({
  decisionType,
  level: 'L0',
  confidence: 1,
  conclusion,
  signals,
});

/** Keeps complete blocks of a cut-off reply: text, and server tool calls with their results. Client tool calls are dropped. */
function completeBlocks(content: ContentBlock[]): ContentBlockParam[] {
  const orphans = new Set(orphanedServerToolUses(content));
  return asParams(content.filter((b) => b.type !== 'tool_use' && !(b.type === 'server_tool_use' && orphans.has(b.id))));
}

/**
 * Appends an assistant turn. After a pause_turn the history already ends with the paused assistant turn and the reply
 * continues it, so the new blocks join that same turn (roles keep alternating; a pending server tool call meets its result).
 */
function appendAssistant(messages: MessageParam[], content: ContentBlockParam[]): void {
  if (content.length === 0) return;
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant') {
    const before: ContentBlockParam[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    messages[messages.length - 1] = { role: 'assistant', content: [...before, ...content] };
  } else {
    messages.push({ role: 'assistant', content });
  }
}

/** Replaces the content of old tool results; returns how many were cleared. */
export function compactToolResults(messages: MessageParam[], keepRecent: number): number {
  const withResults = messages
    .map((m, i) => ({ m, i }))
    .filter(({ m }) => m.role === 'user' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'));
  let cleared = 0;
  for (const { m, i } of withResults.slice(0, Math.max(0, withResults.length - keepRecent))) {
    const content = (m.content as ContentBlockParam[]).map((b) => {
      if (b.type !== 'tool_result' || b.content === CLEARED_TOOL_RESULT) return b;
      cleared += 1;
      return { ...b, content: CLEARED_TOOL_RESULT };
    });
    messages[i] = { ...m, content } as MessageParam;
  }
  return cleared;
}

/**
 * The agent loop: send the whole history, branch on `stop_reason` alone, repeat.
 * Text in a reply never ends the loop; only end_turn (or a logged cap/stop) does.
 */
export async function runAgentLoop(cfg: AgentLoopConfig): Promise<AgentLoopResult> {
  const messages: MessageParam[] = [...cfg.messages];
  const usage = emptyUsage();
  const decisions: EngineDecision[] = [];
  const stats: LoopStats = {
    requests: 0,
    toolCalls: 0,
    toolErrors: 0,
    serverToolCalls: 0,
    continuations: 0,
    maxTokensContinuations: 0,
    compactions: 0,
    nudges: 0,
    idleStops: 0,
    iterationCapHits: 0,
    continuationCapHits: 0,
    refusals: 0,
    truncated: 0,
    contextExhausted: 0,
  };
  const idleThreshold = cfg.idleThreshold ?? 3;
  const maxTokensContinuations = cfg.maxTokensContinuations ?? 2;
  const maxCompactions = cfg.maxCompactions ?? 2;
  let maxTokens = cfg.maxTokens;
  let idleStreak = 0;
  let nudged = false;
  let lastMessage: Message | undefined;
  let refusal: AgentLoopResult['refusal'];

  const finish = (status: LoopStatus): AgentLoopResult => ({
    status,
    messages,
    finalText: lastMessage ? textOf(lastMessage.content) : '',
    lastMessage,
    usage,
    decisions,
    stats,
    refusal,
  });

  for (;;) {
    if (stats.requests >= cfg.maxIterations) {
      stats.iterationCapHits += 1;
      decisions.push(
        loopDecision('iteration-cap', `${cfg.label}: stopped after ${stats.requests} requests (safety cap); finishing with what it has`, {
          requests: stats.requests,
          maxIterations: cfg.maxIterations,
        }),
      );
      return finish('iteration-cap');
    }

    const msg = await sendMessage({
      client: cfg.client,
      model: cfg.model,
      system: cfg.system,
      messages,
      maxTokens,
      tools: cfg.tools,
      stopSequences: cfg.stopSequences,
      label: cfg.label,
      signal: cfg.signal,
    });
    stats.requests += 1;
    addUsage(usage, msg.usage);
    lastMessage = msg;

    // Health monitor: every tool call (server or client) either brings a new source or it does not.
    let needNudge = false;
    let idleStop = false;
    const track = (newSources: number): void => {
      if (idleThreshold <= 0) return;
      if (newSources > 0) {
        idleStreak = 0;
        return;
      }
      idleStreak += 1;
      if (idleStreak >= idleThreshold) {
        if (nudged) idleStop = true;
        else needNudge = true;
      }
    };
    const serverYields = cfg.observe?.(msg) ?? [];
    stats.serverToolCalls += msg.content.filter((b) => b.type === 'server_tool_use').length;
    const stopIdle = (): AgentLoopResult => {
      stats.idleStops += 1;
      decisions.push(
        loopDecision('idle-stop', `${cfg.label}: ${idleStreak} tool calls in a row brought no new source, after a nudge; ending the loop with what it has`, {
          idleStreak,
          threshold: idleThreshold,
          requests: stats.requests,
        }),
      );
      return finish('idle-stopped');
    };
    const nudgeDecision = (): void => {
      nudged = true;
      stats.nudges += 1;
      decisions.push(
        loopDecision('health-nudge', `${cfg.label}: ${idleStreak} tool calls in a row brought no new source; asked the model to conclude`, {
          idleStreak,
          threshold: idleThreshold,
        }),
      );
    };

    switch (msg.stop_reason) {
      case 'end_turn':
        appendAssistant(messages, asParams(msg.content));
        return finish('completed');

      case 'tool_use': {
        for (const n of serverYields) track(n);
        const calls = msg.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
        if (calls.length === 0) {
          decisions.push(loopDecision('unexpected-stop', `${cfg.label}: stop_reason tool_use without a client tool call; ending`, {}));
          return finish('unexpected-stop');
        }
        const outcomes = await Promise.all(
          calls.map(async (call): Promise<ClientToolOutcome> => {
            const handler = cfg.clientTools?.[call.name];
            if (!handler) return { content: `Unknown tool "${call.name}". Use only the tools you were given.`, isError: true, newSources: 0 };
            try {
              return await handler(call.input, call);
            } catch (err) {
              return { content: `Tool "${call.name}" failed: ${err instanceof Error ? err.message : String(err)}`, isError: true, newSources: 0 };
            }
          }),
        );
        stats.toolCalls += calls.length;
        for (const o of outcomes) {
          if (o.isError) stats.toolErrors += 1;
          track(o.newSources);
        }
        if (idleStop) return stopIdle();
        appendAssistant(messages, asParams(msg.content));
        const results: Array<ToolResultBlockParam | TextBlockParam> = calls.map((call, i) => ({
          type: 'tool_result',
          tool_use_id: call.id,
          content: outcomes[i]!.content,
          ...(outcomes[i]!.isError ? { is_error: true } : {}),
        }));
        if (needNudge) {
          results.push({ type: 'text', text: NUDGE_TEXT });
          nudgeDecision();
        }
        messages.push({ role: 'user', content: results });
        continue;
      }

      case 'pause_turn': {
        for (const n of serverYields) track(n);
        if (idleStop) return stopIdle();
        stats.continuations += 1;
        if (stats.continuations > cfg.maxContinuations) {
          stats.continuationCapHits += 1;
          decisions.push(
            loopDecision('continuation-cap', `${cfg.label}: pause_turn continuation cap (${cfg.maxContinuations}) reached; finishing with what it has`, {
              continuations: stats.continuations - 1,
              maxContinuations: cfg.maxContinuations,
            }),
          );
          return finish('continuation-cap');
        }
        // Sent back unchanged so the server can resume its own tool calls.
        appendAssistant(messages, asParams(msg.content));
        if (needNudge && orphanedServerToolUses(msg.content).length === 0) {
          messages.push({ role: 'user', content: [{ type: 'text', text: NUDGE_TEXT }] });
          nudgeDecision();
        }
        continue;
      }

      case 'max_tokens': {
        if (stats.maxTokensContinuations >= maxTokensContinuations) {
          stats.truncated += 1;
          decisions.push(
            loopDecision('truncated', `${cfg.label}: reply still cut off at max_tokens after ${stats.maxTokensContinuations} continuations; marked truncated`, {
              maxTokens,
            }),
          );
          return finish('truncated');
        }
        stats.maxTokensContinuations += 1;
        const kept = completeBlocks(msg.content);
        if (kept.length > 0) {
          appendAssistant(messages, kept);
          messages.push({ role: 'user', content: CONTINUE_AFTER_MAX_TOKENS });
        } else {
          maxTokens = Math.min(maxTokens * 2, 16_000);
        }
        continue;
      }

      case 'stop_sequence': {
        if (cfg.onStopSequence === 'continue' && stats.requests < cfg.maxIterations) {
          appendAssistant(messages, completeBlocks(msg.content));
          messages.push({ role: 'user', content: CONTINUE_AFTER_STOP_SEQUENCE });
          continue;
        }
        appendAssistant(messages, completeBlocks(msg.content));
        return finish('stop-sequence');
      }

      case 'refusal': {
        stats.refusals += 1;
        refusal = { category: msg.stop_details?.category ?? null, explanation: msg.stop_details?.explanation ?? null };
        decisions.push(
          loopDecision('refusal', `${cfg.label}: the model refused (${refusal.category ?? 'no category'}); stopping`, {
            category: refusal.category,
          }),
        );
        return finish('refused');
      }

      case 'model_context_window_exceeded': {
        const cleared = stats.compactions < maxCompactions ? compactToolResults(messages, cfg.keepRecentToolResults ?? 1) : 0;
        if (cleared > 0) {
          stats.compactions += 1;
          decisions.push(
            loopDecision('context-compacted', `${cfg.label}: context window exceeded; cleared ${cleared} old tool results and continued`, {
              cleared,
              compactions: stats.compactions,
            }),
          );
          continue; // the cut-off reply is discarded; the compacted history is sent again
        }
        stats.contextExhausted += 1;
        decisions.push(
          loopDecision('context-window-finish', `${cfg.label}: context window exceeded and nothing left to compact; finishing with what it has`, {
            compactions: stats.compactions,
          }),
        );
        return finish('context-exhausted');
      }

      default:
        decisions.push(loopDecision('unexpected-stop', `${cfg.label}: unknown stop_reason ${String(msg.stop_reason)}; ending`, {}));
        return finish('unexpected-stop');
    }
  }
}
