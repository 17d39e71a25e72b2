/**
 * The web tools and task budgets as the fake Messages API serves them, each rule from its doc:
 * - web search (platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool): a result's page text comes
 *   back only as `encrypted_content`, opaque to the client; what the client can read of a page is the `cited_text` of a
 *   `web_search_result_location` citation, "up to 150 characters"; each `web_search_result` also carries `page_age`,
 *   a free-form string or null (the SDK's WebSearchResultBlock: `page_age: string | null`), worded as a date or as an
 *   age ("April 30, 2026", "1 week ago": the SDK's fixture tests/fixtures/fable-fallback/stream-a-toolrefusal.sse);
 * - web fetch (platform.claude.com/docs/en/agents-and-tools/tool-use/web-fetch-tool): a `web_fetch_tool_result` whose
 *   `web_fetch_result` holds the page as a `document` block with its text (`source.type: "text"`); Claude "can only
 *   fetch URLs that have previously appeared in the conversation context" (narrowed further by `url_sources` on
 *   web_fetch_20260318), otherwise, and on `max_uses`, domain filters or an unreachable page, the result is a
 *   `web_fetch_tool_result_error` with the SDK's WebFetchToolResultErrorCode;
 * - task budgets (platform.claude.com/docs/en/build-with-claude/task-budgets): `output_config.task_budget` needs the
 *   `task-budgets-2026-03-13` beta header and a model the page lists.
 */
import { createHash } from 'node:crypto';
import { blocksOf } from './fake-messages-validation';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

/** `cited_text`: "Up to 150 characters of the cited content" (web search tool docs, citations). */
export const CITED_TEXT_MAX = 150;

export interface FakePage {
  title: string;
  text: string;
}

/**
 * The page behind a URL, as a fetch returns it: several dated sentences, one a line, about what the URL names. Its
 * later lines are text only the whole page holds: no search snippet or citation carries them.
 */
export function fakePage(url: string): FakePage {
  const slug = url.replace(/^https?:\/\/[^/]+\//, '').replace(/[^a-z0-9]+/gi, ' ').trim() || 'the subject';
  const n = (i: number) => createHash('sha256').update(`${url}#${i}`).digest().readUInt16BE(0) % 900 + 100;
  return {
    title: `Full text: ${slug}`,
    text: [
      `An overview of ${slug}, as published by the original source.`,
      `In March 2025 the official register recorded ${n(1)} cases linked to ${slug}.`,
      `The agency's annual report for 2024 put the total cost of ${slug} at ${n(2)} million dollars.`,
      `A peer-reviewed study published in 2023 found that ${slug} affected ${n(3)} households in the region.`,
      `Analysts at the ministry expect the figure for ${slug} could rise to ${n(4)} by 2030, a projection not yet confirmed.`,
      `A second survey, from 2022, counted only ${n(5)} cases of ${slug}, which disagrees with the register.`,
      `The page was last revised on 12 January 2026 by the statistics office.`,
    ].join('\n'),
  };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A search result's `page_age` for a URL: null for one URL in three, an age ("3 weeks ago") for one in six, else a date. */
export function fakePageAge(url: string): string | null {
  const h = createHash('sha256').update(`age:${url}`).digest();
  if (h[0]! % 3 === 0) return null;
  if (h[0]! % 6 === 1) return `${(h[1]! % 3) + 2} weeks ago`;
  return `${MONTHS[h[1]! % 12]} ${(h[2]! % 28) + 1}, ${2022 + (h[3]! % 4)}`;
}

/** The beta header's value, as a list. */
const betasOf = (header: string | string[] | undefined): string[] =>
  (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((b) => b.trim()).filter(Boolean);

export const TASK_BUDGETS_BETA = 'task-budgets-2026-03-13';
/** The task budgets page's `supportedModels`. */
const TASK_BUDGET_MODELS = ['claude-fable-5-1', 'claude-mythos-5-1', 'claude-fable-5', 'claude-mythos-5', 'claude-opus-5-5', 'claude-opus-5', 'claude-opus-4-8', 'claude-opus-4-7', 'claude-sonnet-5-5', 'claude-haiku-5-5'];
/** The smallest total the API takes (the Opus 4.7 launch notes on task budgets). */
export const MIN_TASK_BUDGET = 20_000;

/** The 400 for a `task_budget` the API would refuse, or undefined. */
export function invalidTaskBudget(body: Json, betaHeader: string | string[] | undefined): string | undefined {
  const tb = body?.output_config?.task_budget;
  if (tb === undefined || tb === null) return undefined;
  if (!betasOf(betaHeader).includes(TASK_BUDGETS_BETA)) return `output_config.task_budget: Extra inputs are not permitted (this feature needs the ${TASK_BUDGETS_BETA} beta header)`;
  const model = String(body.model);
  if (!TASK_BUDGET_MODELS.some((m) => model === m || model.startsWith(`${m}-2`))) return `output_config.task_budget: not supported for model ${model}`;
  if (tb.type !== 'tokens') return "output_config.task_budget.type: Input should be 'tokens'";
  if (!Number.isInteger(tb.total) || tb.total < MIN_TASK_BUDGET) return `output_config.task_budget.total: Input should be greater than or equal to ${MIN_TASK_BUDGET}`;
  if (tb.remaining !== undefined && tb.remaining !== null && (!Number.isInteger(tb.remaining) || tb.remaining < 0 || tb.remaining > tb.total)) {
    return 'output_config.task_budget.remaining: must be between 0 and total';
  }
  return undefined;
}

/** A citation as the API returns it: its `cited_text` cut to the documented 150 characters. */
export const citedText = (text: string): string => text.slice(0, CITED_TEXT_MAX);

const urlsIn = (text: string): string[] => [...text.matchAll(/https?:\/\/[^\s"'<>)\]]+/g)].map((m) => m[0]);

/**
 * URLs a fetch may name: every URL web search (or an earlier fetch) returned in the conversation or earlier in this
 * reply, and, unless `url_sources` rules the user's input out, those the user wrote.
 */
function fetchableUrls(tool: Json, messages: Json[], replySoFar: Json[]): Set<string> {
  const out = new Set<string>();
  const fromUser = tool?.url_sources?.user_input?.type !== 'none';
  const fromClientTools = tool?.url_sources?.client_tool_results?.type !== 'none';
  const visit = (b: Json, role: string): void => {
    if (b?.type === 'web_search_tool_result' && Array.isArray(b.content)) for (const r of b.content) out.add(r.url);
    else if (b?.type === 'web_fetch_tool_result' && b.content?.type === 'web_fetch_result') out.add(b.content.url);
    else if (role === 'user' && fromUser && b?.type === 'text') for (const u of urlsIn(b.text)) out.add(u);
    else if (role === 'user' && fromClientTools && b?.type === 'tool_result') for (const u of urlsIn(JSON.stringify(b.content ?? ''))) out.add(u);
  };
  for (const m of messages) for (const b of blocksOf(m.content)) visit(b, m.role);
  for (const b of replySoFar) visit(b, 'assistant');
  return out;
}

const hostOf = (url: string): string => (URL.canParse(url) ? new URL(url).hostname : '');
const inDomains = (host: string, domains: string[]): boolean => domains.some((d) => host === d || host.endsWith(`.${d}`));

/**
 * Runs the reply's direct web_fetch calls that have no result yet: each gets its `web_fetch_tool_result` right after
 * it, the page's text as a document, or the error the real tool gives.
 */
export function runWebFetches(content: Json[], messages: Json[], tools: Json[], pages: (url: string) => FakePage | undefined): Json[] {
  const tool = tools.find((t) => t?.name === 'web_fetch');
  const answered = new Set(content.filter((b) => b.type === 'web_fetch_tool_result').map((b) => b.tool_use_id));
  const out: Json[] = [];
  let uses = 0;
  for (const b of content) {
    out.push(b);
    if (b.type !== 'server_tool_use' || b.name !== 'web_fetch' || answered.has(b.id) || (b.caller?.type && b.caller.type !== 'direct')) continue;
    uses += 1;
    const url = String(b.input?.url ?? '');
    const error = (error_code: string): Json => ({ type: 'web_fetch_tool_result', tool_use_id: b.id, caller: { type: 'direct' }, content: { type: 'web_fetch_tool_result_error', error_code } });
    const host = hostOf(url);
    const page = pages(url);
    if (!host) out.push(error('invalid_tool_input'));
    else if (url.length > 250) out.push(error('url_too_long'));
    else if (tool?.max_uses !== undefined && uses > tool.max_uses) out.push(error('max_uses_exceeded'));
    else if ((tool?.allowed_domains?.length && !inDomains(host, tool.allowed_domains)) || (tool?.blocked_domains?.length && inDomains(host, tool.blocked_domains))) out.push(error('url_not_allowed'));
    else if (!fetchableUrls(tool, messages, out).has(url)) out.push(error('url_not_in_prior_context'));
    else if (!page) out.push(error('url_not_accessible'));
    else {
      out.push({
        type: 'web_fetch_tool_result',
        tool_use_id: b.id,
        caller: { type: 'direct' },
        content: {
          type: 'web_fetch_result',
          url,
          retrieved_at: new Date().toISOString(),
          content: { type: 'document', title: page.title, citations: tool?.citations?.enabled ? { enabled: true } : null, source: { type: 'text', media_type: 'text/plain', data: page.text } },
        },
      });
    }
  }
  return out;
}
