import type {
  ContentBlock,
  ContentBlockParam,
  Message,
  MessageParam,
  ToolResultBlockParam,
  ToolUnion,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages';
import type { TokenUsage } from '@orrery/protocol';
import type { EngineDecision } from '@orrery/engine';
import { addUsage, emptyUsage, totalTokens, inToolSpan } from '@orrery/engine';
import { AnthropicEngineError } from './errors';
import { asParams, MAX_STREAMING_TOKENS, orphanedServerToolUses, textOf, type ContextManagement, type MessagesApi } from './messages-client';
import type { Effort } from './role-settings';
import { CONTINUE_AFTER_EMPTY_REPLY, CONTINUE_AFTER_MAX_TOKENS, NUDGE_TEXT } from './prompts';

export interface ClientToolOutcome {
  content: string;
  isError?: boolean;
  /** Sources this call brought that the task had not seen: the health monitor's signal. */
  newSources: number;
}
export type ClientToolHandler = (input: unknown, call: ToolUseBlock) => Promise<ClientToolOutcome> | ClientToolOutcome;

export type LoopStatus =
  | 'completed' // end_turn
  | 'stop-sequence' // stop_sequence: the loop sends none, so only an API that stops on one anyway
  | 'truncated' // max_tokens after the allowed continuations
  | 'refused' // refusal
  | 'idle-stopped' // health monitor ended it
  | 'budget-stopped' // the task's budget (tokens, tool calls, dollars, deadline) is spent
  | 'step-stopped' // the per-step hook ended it
  | 'iteration-cap' // safety net
  | 'continuation-cap' // too many pause_turn continuations
  | 'context-exhausted' // model_context_window_exceeded: the context is full
  | 'unexpected-stop'; // a stop_reason this loop does not know, or tool_use with no client tool call

/** The task's share of its run's budget; the loop stops before a request that would start past it. */
export interface LoopBudget {
  /** Tokens as budgets count them: input, output, cache reads and writes. */
  maxTokens?: number;
  /** Client and server tool calls together. */
  maxToolCalls?: number;
  maxCostUsd?: number;
  /** Epoch ms; a request still running then is cut off. */
  deadlineMs?: number;
}

/** What the per-step hook sees after a reply that would continue the loop (tool_use, pause_turn). */
export interface LoopStep {
  label: string;
  message: Message;
  stats: Readonly<LoopStats>;
  usage: Readonly<TokenUsage>;
  /** New sources this reply's tool calls brought. */
  newSources: number;
}
/**
 * A hook's answer: continue (undefined), stop with the decision that says why, or steer: a note the model reads with
 * the tool results it is about to get (after a tool turn only; after a pause_turn there are no results to carry it).
 */
export type StepVerdict = { stop: EngineDecision } | { steer: string } | undefined;

export interface AgentLoopConfig {
  api: MessagesApi;
  model: string;
  system: string;
  /** The conversation so far; the first message is the user's. Not mutated. */
  messages: MessageParam[];
  tools?: ToolUnion[];
  clientTools?: Record<string, ClientToolHandler>;
  maxTokens: number;
  /**
   * A refusal restarts the conversation once on this model (refusals-and-fallback docs: the same request to another
   * Claude model usually gets an answer). From the first message: thinking blocks are bound to the model that wrote
   * them, so the refused model's history cannot go to another.
   */
  fallbackModel?: string;
  /** How hard the model thinks, and whether its thinking text comes back (SendParams). */
  effort?: Effort;
  thinkingDisplay?: 'summarized' | 'omitted';
  /** pause_turn continuations allowed before the loop ends (logged). */
  maxContinuations: number;
  /** Requests allowed before the loop ends (safety net, logged). */
  maxIterations: number;
  /** Tool calls in a row without a new source before the one nudge; 0 disables the health monitor. Default 3. */
  idleThreshold?: number;
  /** Continuations after max_tokens before the result is marked truncated. Default 2. */
  maxTokensContinuations?: number;
  /**
   * Server-side tool-result clearing (SendParams.contextManagement): the history stays append-only here, with thinking
   * blocks as returned, and the API clears old tool results from what the model reads.
   */
  contextManagement?: ContextManagement;
  /** Sees every response first; returns, per server tool result block in order, how many new sources it brought. */
  observe?: (message: Message) => number[];
  budget?: LoopBudget;
  /**
   * Runs after each reply that would continue the loop, once its tool calls are answered: a place for a judge to stop
   * the loop early. It sees the reply, the stats and the usage so far.
   */
  onStep?: (step: LoopStep) => StepVerdict | Promise<StepVerdict>;
  label: string;
  signal?: AbortSignal;
  /** Where the loop adds each reply's usage (its result's `usage`): the caller's, so a loop that throws part-way still leaves what it spent. */
  usage?: TokenUsage;
  /**
   * After a stop that is not the model's own (budget, health monitor, per-step hook, caps), one more request with this
   * instruction and `tool_choice: none`, so the loop still ends with the model's written account of what it found.
   * Not after a deadline (no time is left for it) nor while a server tool call is still pending.
   */
  finalTurn?: {
    instruction: string;
    maxTokens: number;
    /**
     * Tokens the final turn is expected to write (thinking and answer); with a token budget, the loop keeps its last
     * prompt plus this much of it free for the final turn, and skips the turn when that does not fit.
     */
    reserveTokens: number;
  };
  /** `output_config.task_budget` on every request (SendParams.taskBudget): the model paces itself to this many tokens. */
  taskBudget?: number;
}

export interface LoopStats {
  requests: number;
  toolCalls: number;
  toolErrors: number;
  serverToolCalls: number;
  continuations: number;
  maxTokensContinuations: number;
  nudges: number;
  idleStops: number;
  emptyReplies: number;
  budgetStops: number;
  iterationCapHits: number;
  continuationCapHits: number;
  refusals: number;
  truncated: number;
  contextExhausted: number;
  /** Tool-free final turns asked for after a stop (AgentLoopConfig.finalTurn). */
  finalTurns: number;
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

/** A cut-off reply that was in the middle of a tool call (client or server): the call needs more room, not a continuation. */
const cutToolCall = (content: ContentBlock[]): boolean => content.some((b) => b.type === 'tool_use') || orphanedServerToolUses(content).length > 0;

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

/** Why a budget would stop the next request, if it would. */
export function budgetSpent(budget: LoopBudget | undefined, usage: TokenUsage, toolCalls: number, now = Date.now()): string | undefined {
  if (!budget) return undefined;
  if (budget.maxTokens !== undefined && totalTokens(usage) >= budget.maxTokens) return `tokens ${totalTokens(usage)} of ${budget.maxTokens}`;
  if (budget.maxToolCalls !== undefined && toolCalls >= budget.maxToolCalls) return `tool calls ${toolCalls} of ${budget.maxToolCalls}`;
  if (budget.maxCostUsd !== undefined && usage.costUsd >= budget.maxCostUsd) return `cost $${usage.costUsd.toFixed(4)} of $${budget.maxCostUsd.toFixed(4)}`;
  if (budget.deadlineMs !== undefined && now >= budget.deadlineMs) return `deadline ${new Date(budget.deadlineMs).toISOString()} passed`;
  return undefined;
}

/** A signal that fires at the deadline as well as on the caller's abort. */
function withDeadline(signal: AbortSignal | undefined, deadlineMs: number | undefined): { signal?: AbortSignal; clear: () => void } {
  if (deadlineMs === undefined) return { ...(signal ? { signal } : {}), clear: () => undefined };
  const timer = new AbortController();
  const t = setTimeout(() => timer.abort(new Error('task deadline')), Math.max(0, deadlineMs - Date.now()));
  return { signal: signal ? AbortSignal.any([signal, timer.signal]) : timer.signal, clear: () => clearTimeout(t) };
}

/**
 * The agent loop: send the whole history, branch on `stop_reason` alone, repeat.
 * Text in a reply never ends the loop; only end_turn (or a logged cap/stop) does.
 */
export async function runAgentLoop(cfg: AgentLoopConfig): Promise<AgentLoopResult> {
  const messages: MessageParam[] = [...cfg.messages];
  const usage = cfg.usage ?? emptyUsage();
  const decisions: EngineDecision[] = [];
  const stats: LoopStats = {
    requests: 0,
    toolCalls: 0,
    toolErrors: 0,
    serverToolCalls: 0,
    continuations: 0,
    maxTokensContinuations: 0,
    nudges: 0,
    idleStops: 0,
    emptyReplies: 0,
    budgetStops: 0,
    iterationCapHits: 0,
    continuationCapHits: 0,
    refusals: 0,
    truncated: 0,
    contextExhausted: 0,
    finalTurns: 0,
  };
  const idleThreshold = cfg.idleThreshold ?? 3;
  const maxTokensContinuations = cfg.maxTokensContinuations ?? 2;
  let maxTokens = cfg.maxTokens;
  let model = cfg.model;
  let idleStreak = 0;
  let nudged = false;
  let continuedEmpty = false;
  let container: string | undefined;
  let lastMessage: Message | undefined;
  let refusal: AgentLoopResult['refusal'];
  /** The last request's prompt, as budgets count it: what the final turn re-sends, plus the reply after it. */
  let lastPromptTokens = 0;
  const finalReserve = (): number => (cfg.finalTurn ? lastPromptTokens + cfg.finalTurn.reserveTokens : 0);

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
  /**
   * The tool-free final turn after a stop: its instruction rides in the last tool result where there is one (text after
   * tool results draws an empty end_turn), else in a user turn after the assistant's. The reply's thinking is kept as
   * returned; its text is the loop's final text. A failure here loses nothing the loop gathered.
   */
  const conclude = async (status: LoopStatus, timeLeft = true): Promise<AgentLoopResult> => {
    const final = cfg.finalTurn;
    const last = messages[messages.length - 1];
    if (!final || !timeLeft || cfg.signal?.aborted || messages.length < 2 || !last) return finish(status);
    const maxBudget = cfg.budget?.maxTokens;
    if (maxBudget !== undefined && totalTokens(usage) + finalReserve() > maxBudget) {
      decisions.push(
        loopDecision('final-report', `${cfg.label}: no written report after the stop (${status}): about ${finalReserve()} tokens would not fit the ${maxBudget - totalTokens(usage)} left`, {
          status,
          skipped: true,
        }),
      );
      return finish(status);
    }
    if (last.role === 'assistant') {
      if (typeof last.content !== 'string' && orphanedServerToolUses(last.content as unknown as ContentBlock[]).length > 0) return finish(status);
      messages.push({ role: 'user', content: [{ type: 'text', text: final.instruction }] });
    } else {
      const blocks: ContentBlockParam[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
      const end = blocks[blocks.length - 1];
      if (end?.type === 'tool_result' && typeof end.content === 'string') blocks[blocks.length - 1] = { ...end, content: `${end.content}\n\n${final.instruction}` };
      else if (end?.type === 'text') blocks[blocks.length - 1] = { ...end, text: `${end.text}\n\n${final.instruction}` };
      else blocks.push({ type: 'text', text: final.instruction });
      messages[messages.length - 1] = { role: 'user', content: blocks };
    }
    stats.finalTurns += 1;
    const deadline = withDeadline(cfg.signal, cfg.budget?.deadlineMs);
    try {
      const sent = await cfg.api.send({
        model,
        system: cfg.system,
        messages,
        maxTokens: Math.max(1, Math.min(final.maxTokens, maxBudget !== undefined ? maxBudget - totalTokens(usage) - lastPromptTokens : Infinity)),
        tools: cfg.tools,
        ...(cfg.tools?.length ? { toolChoice: 'none' as const } : {}),
        ...(cfg.contextManagement ? { contextManagement: cfg.contextManagement } : {}),
        ...(cfg.effort ? { effort: cfg.effort } : {}),
        ...(cfg.thinkingDisplay ? { thinkingDisplay: cfg.thinkingDisplay } : {}),
        ...(cfg.taskBudget ? { taskBudget: cfg.taskBudget } : {}),
        ...(container ? { container } : {}),
        label: `${cfg.label} (final report)`,
        ...(deadline.signal ? { signal: deadline.signal } : {}),
      });
      addUsage(usage, sent.usage);
      stats.requests += 1;
      cfg.observe?.(sent.message);
      if (sent.message.stop_reason === 'end_turn' || sent.message.stop_reason === 'max_tokens') {
        lastMessage = sent.message;
        appendAssistant(messages, completeBlocks(sent.message.content));
      }
      decisions.push(
        loopDecision('final-report', `${cfg.label}: asked for a written report without tools after the stop (${status}); it ${sent.message.stop_reason === 'end_turn' ? 'answered' : `stopped with ${String(sent.message.stop_reason)}`}`, {
          status,
          stopReason: sent.message.stop_reason,
        }),
      );
    } catch (err) {
      if (cfg.signal?.aborted) throw err;
      decisions.push(loopDecision('final-report', `${cfg.label}: the final report request failed (${err instanceof Error ? err.message : String(err)}); finishing with what it has`, { status, failed: true }));
    } finally {
      deadline.clear();
    }
    return finish(status);
  };
  const stopForBudget = (why: string): Promise<AgentLoopResult> => {
    stats.budgetStops += 1;
    decisions.push(
      loopDecision('budget-stop', `${cfg.label}: the task's budget is spent (${why}); finishing with what it has`, {
        why,
        requests: stats.requests,
        tokens: totalTokens(usage),
        toolCalls: stats.toolCalls + stats.serverToolCalls,
        costUsd: usage.costUsd,
        ...(cfg.budget?.maxTokens !== undefined ? { maxTokens: cfg.budget.maxTokens } : {}),
        ...(cfg.budget?.maxToolCalls !== undefined ? { maxToolCalls: cfg.budget.maxToolCalls } : {}),
        ...(cfg.budget?.maxCostUsd !== undefined ? { maxCostUsd: cfg.budget.maxCostUsd } : {}),
      }),
    );
    return conclude('budget-stopped', !why.startsWith('deadline'));
  };

  for (;;) {
    if (stats.requests >= cfg.maxIterations) {
      stats.iterationCapHits += 1;
      decisions.push(
        loopDecision('iteration-cap', `${cfg.label}: stopped after ${stats.requests} requests (safety cap); finishing with what it has`, {
          requests: stats.requests,
          maxIterations: cfg.maxIterations,
        }),
      );
      return conclude('iteration-cap');
    }
    // With a final turn to come, the loop stops while one more request (about its last prompt) and the final turn after
    // it still fit the token budget.
    const reserve = cfg.finalTurn ? lastPromptTokens + finalReserve() : 0;
    const spent = budgetSpent(
      reserve > 0 && cfg.budget?.maxTokens !== undefined ? { ...cfg.budget, maxTokens: Math.max(0, cfg.budget.maxTokens - reserve) } : cfg.budget,
      usage,
      stats.toolCalls + stats.serverToolCalls,
    );
    if (spent) return stopForBudget(spent);
    // The reply may not write past the token budget either.
    const tokensLeft = cfg.budget?.maxTokens !== undefined ? cfg.budget.maxTokens - totalTokens(usage) : Infinity;
    const deadline = withDeadline(cfg.signal, cfg.budget?.deadlineMs);
    let msg: Message;
    try {
      const sent = await cfg.api.send({
        model,
        system: cfg.system,
        messages,
        maxTokens: Math.max(1, Math.min(maxTokens, tokensLeft)),
        tools: cfg.tools,
        ...(cfg.contextManagement ? { contextManagement: cfg.contextManagement } : {}),
        ...(cfg.effort ? { effort: cfg.effort } : {}),
        ...(cfg.thinkingDisplay ? { thinkingDisplay: cfg.thinkingDisplay } : {}),
        ...(cfg.taskBudget ? { taskBudget: cfg.taskBudget } : {}),
        ...(container ? { container } : {}),
        label: cfg.label,
        ...(deadline.signal ? { signal: deadline.signal } : {}),
      });
      msg = sent.message;
      addUsage(usage, sent.usage);
      lastPromptTokens = sent.usage.inputTokens + sent.usage.cacheReadTokens + sent.usage.cacheWriteTokens + sent.usage.outputTokens;
    } catch (err) {
      // The deadline cut the request: a budget stop, not a failure. The caller's own abort propagates.
      if (err instanceof AnthropicEngineError && err.aborted && !cfg.signal?.aborted && cfg.budget?.deadlineMs !== undefined && Date.now() >= cfg.budget.deadlineMs - 5) {
        return stopForBudget(`deadline ${new Date(cfg.budget.deadlineMs).toISOString()} passed during a request`);
      }
      throw err;
    } finally {
      deadline.clear();
    }
    stats.requests += 1;
    lastMessage = msg;
    // A response that ran code names its container; every follow-up must name it while its code has calls pending.
    if (msg.container?.id) container = msg.container.id;

    // Health monitor: every tool call (server or client) either brings a new source or it does not.
    let needNudge = false;
    let idleStop = false;
    let newSources = 0;
    const track = (n: number): void => {
      newSources += n;
      if (idleThreshold <= 0) return;
      if (n > 0) {
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
    const stopIdle = (): Promise<AgentLoopResult> => {
      stats.idleStops += 1;
      decisions.push(
        loopDecision('idle-stop', `${cfg.label}: ${idleStreak} tool calls in a row brought no new source, after a nudge; ending the loop with what it has`, {
          idleStreak,
          threshold: idleThreshold,
          requests: stats.requests,
        }),
      );
      return conclude('idle-stopped');
    };
    const nudgeDecision = (where: string): void => {
      nudged = true;
      stats.nudges += 1;
      decisions.push(
        loopDecision('health-nudge', `${cfg.label}: ${idleStreak} tool calls in a row brought no new source; asked the model to conclude (${where})`, {
          idleStreak,
          threshold: idleThreshold,
        }),
      );
    };
    const step = async (): Promise<AgentLoopResult | undefined> => {
      const verdict = await cfg.onStep?.({ label: cfg.label, message: msg, stats, usage, newSources });
      if (!verdict) return undefined;
      if ('steer' in verdict) {
        const results = messages[messages.length - 1];
        const last = results?.role === 'user' && Array.isArray(results.content) ? results.content[results.content.length - 1] : undefined;
        if (last?.type === 'tool_result' && typeof last.content === 'string') last.content = `${last.content}\n\n${verdict.steer}`;
        return undefined;
      }
      decisions.push(verdict.stop);
      return conclude('step-stopped');
    };

    switch (msg.stop_reason) {
      case 'end_turn': {
        if (msg.content.length === 0 && !continuedEmpty && messages[messages.length - 1]?.role === 'user') {
          // An empty end_turn (stop reasons docs, "empty responses"): sending the same history again gets the same
          // nothing; a new user turn asking to continue is the documented way out. Once.
          continuedEmpty = true;
          stats.emptyReplies += 1;
          decisions.push(loopDecision('empty-reply', `${cfg.label}: the model ended its turn with no content; asked it once to continue`, { requests: stats.requests }));
          messages.push({ role: 'user', content: CONTINUE_AFTER_EMPTY_REPLY });
          continue;
        }
        appendAssistant(messages, asParams(msg.content));
        return finish('completed');
      }

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
              return await inToolSpan(call.name, 'function', call.id, async () => handler(call.input, call));
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
        appendAssistant(messages, asParams(msg.content));
        // Tool results only: a server call deferred beside these calls runs when they come back, and the API refuses
        // any other block in that turn; text after tool results also invites an empty end_turn. So the nudge, when
        // due, rides inside the last result.
        const results: ToolResultBlockParam[] = calls.map((call, i) => ({
          type: 'tool_result',
          tool_use_id: call.id,
          content: outcomes[i]!.content,
          ...(outcomes[i]!.isError ? { is_error: true } : {}),
        }));
        if (idleStop) {
          messages.push({ role: 'user', content: results });
          return stopIdle();
        }
        if (needNudge) {
          const last = results[results.length - 1]!;
          results[results.length - 1] = { ...last, content: `${last.content as string}\n\n${NUDGE_TEXT}` };
          nudgeDecision('in the tool result');
        }
        messages.push({ role: 'user', content: results });
        const stopped = await step();
        if (stopped) return stopped;
        continue;
      }

      case 'pause_turn': {
        for (const n of serverYields) track(n);
        if (idleStop) {
          appendAssistant(messages, asParams(msg.content));
          return stopIdle();
        }
        stats.continuations += 1;
        if (stats.continuations > cfg.maxContinuations) {
          stats.continuationCapHits += 1;
          decisions.push(
            loopDecision('continuation-cap', `${cfg.label}: pause_turn continuation cap (${cfg.maxContinuations}) reached; finishing with what it has`, {
              continuations: stats.continuations - 1,
              maxContinuations: cfg.maxContinuations,
            }),
          );
          appendAssistant(messages, asParams(msg.content));
          return conclude('continuation-cap');
        }
        // Sent back unchanged so the server can resume its own tool calls.
        appendAssistant(messages, asParams(msg.content));
        if (needNudge && orphanedServerToolUses(msg.content).length === 0) {
          messages.push({ role: 'user', content: [{ type: 'text', text: NUDGE_TEXT }] });
          nudgeDecision('as a new turn');
        }
        const stopped = await step();
        if (stopped) return stopped;
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
        // A tool call cut in the middle cannot be continued, only asked for again with more room.
        if (cutToolCall(msg.content)) maxTokens = Math.min(maxTokens * 2, MAX_STREAMING_TOKENS);
        const kept = completeBlocks(msg.content);
        if (kept.length > 0) {
          appendAssistant(messages, kept);
          messages.push({ role: 'user', content: CONTINUE_AFTER_MAX_TOKENS });
        } else {
          maxTokens = Math.min(maxTokens * 2, MAX_STREAMING_TOKENS);
        }
        continue;
      }

      case 'stop_sequence': {
        // The loop sends no stop sequences, so the API should never stop on one; if it does, the reply is final.
        appendAssistant(messages, completeBlocks(msg.content));
        return finish('stop-sequence');
      }

      case 'refusal': {
        stats.refusals += 1;
        refusal = { category: msg.stop_details?.category ?? null, explanation: msg.stop_details?.explanation ?? null };
        if (cfg.fallbackModel && model !== cfg.fallbackModel) {
          decisions.push(
            loopDecision('model-fallback', `${cfg.label}: ${model} refused (${refusal.category ?? 'no category'}); starting over on ${cfg.fallbackModel}`, {
              from: model,
              to: cfg.fallbackModel,
              category: refusal.category,
            }),
          );
          model = cfg.fallbackModel;
          messages.splice(0, messages.length, ...cfg.messages);
          container = undefined;
          refusal = undefined;
          continue;
        }
        decisions.push(
          loopDecision('refusal', `${cfg.label}: the model refused (${refusal.category ?? 'no category'}); stopping`, {
            category: refusal.category,
          }),
        );
        return finish('refused');
      }

      case 'model_context_window_exceeded': {
        // The history is never rewritten here: thinking blocks are bound to the conversation before them, so a
        // rewritten prefix is refused ("Thinking blocks are tied to the model and the conversation",
        // whats-new-opus-5-5). Old tool results are cleared server-side (contextManagement); a context still full
        // finishes with what the task has.
        stats.contextExhausted += 1;
        decisions.push(
          loopDecision('context-window-finish', `${cfg.label}: context window exceeded; finishing with what it has`, {
            requests: stats.requests,
            clearing: cfg.contextManagement ? 'server-side' : 'off',
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
