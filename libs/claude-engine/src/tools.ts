import type { ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import type { PassageSearch } from '@orrery/engine';
import type { Redactor } from './redaction/redact';
import type { ClientToolHandler } from './agent-loop';
import { CODE_EXECUTION_TOOL_TYPE, WEB_FETCH_TOOL_TYPE, WEB_SEARCH_TOOL_TYPE, type WebFetchConfig, type WebSearchConfig } from './options';
import { untrustedSource } from './prompts';
import type { SourceLedger } from './sources';
import { clipText } from '@orrery/protocol';

/** The only tools a research subagent gets. */
export const CLIENT_TOOL_NAMES = ['search_corpus', 'read_passage'] as const;
const PASSAGE_SHOWN_CHARS = 4000;

const SearchCorpusInput = z.strictObject({ query: z.string().min(1).max(500), limit: z.number().int().min(1).max(10).optional() });
const ReadPassageInput = z.strictObject({ id: z.string().min(1).max(300) });

export interface ResearchToolset {
  tools: ToolUnion[];
  handlers: Record<string, ClientToolHandler>;
}

/** `allowed_callers` for the web tools: the model only, or code execution too (see WebCallers). */
const webCallers = (cfg: WebSearchConfig): Array<'direct' | typeof CODE_EXECUTION_TOOL_TYPE> =>
  cfg.callers === 'code-execution' ? ['direct', CODE_EXECUTION_TOOL_TYPE] : ['direct'];

export function webSearchTool(cfg: WebSearchConfig): ToolUnion {
  return {
    type: WEB_SEARCH_TOOL_TYPE,
    name: 'web_search',
    max_uses: cfg.maxUses ?? 5,
    allowed_callers: webCallers(cfg),
    ...(cfg.allowedDomains?.length ? { allowed_domains: cfg.allowedDomains } : {}),
    ...(cfg.blockedDomains?.length ? { blocked_domains: cfg.blockedDomains } : {}),
  };
}

/** Web fetch limited to URLs that web search returned (never URLs from the prompt or other tools), and to the configured domains. */
export function webFetchTool(cfg: WebFetchConfig, search: WebSearchConfig): ToolUnion {
  return {
    type: WEB_FETCH_TOOL_TYPE,
    name: 'web_fetch',
    max_uses: cfg.maxUses ?? 3,
    allowed_callers: webCallers(search),
    url_sources: {
      server_tool_results: { type: 'only', tools: [{ type: 'tool_reference', name: 'web_search' }] },
      client_tool_results: { type: 'none' },
      user_input: { type: 'none' },
    },
    ...(cfg.allowedDomains?.length ? { allowed_domains: cfg.allowedDomains } : {}),
    ...(cfg.blockedDomains?.length ? { blocked_domains: cfg.blockedDomains } : {}),
    ...(cfg.maxContentTokens ? { max_content_tokens: cfg.maxContentTokens } : {}),
  };
}

/**
 * Web search (server tool), optionally web fetch, and the corpus as client tools. Passage text is redacted before the
 * model sees it, shown as untrusted data, and recorded in the ledger exactly as shown.
 */
export function researchTools(opts: {
  webSearch: WebSearchConfig;
  webFetch: WebFetchConfig;
  passages?: PassageSearch;
  ledger: SourceLedger;
  redactor: Redactor;
}): ResearchToolset {
  const tools: ToolUnion[] = [];
  const handlers: Record<string, ClientToolHandler> = {};
  if (opts.webSearch.enabled) tools.push(webSearchTool(opts.webSearch));
  if (opts.webSearch.enabled && opts.webFetch.enabled) tools.push(webFetchTool(opts.webFetch, opts.webSearch));
  // Code may call the web tools only where the code execution tool is offered (programmatic tool calling docs).
  if (opts.webSearch.enabled && opts.webSearch.callers === 'code-execution') tools.push({ type: CODE_EXECUTION_TOOL_TYPE, name: 'code_execution' });
  const passages = opts.passages;
  if (passages) {
    tools.push(
      {
        name: 'search_corpus',
        description:
          "Full-text (BM25) search over the user's document collection. Returns the best-matching passages with their ids. Use specific keywords; vary them between calls.",
        input_schema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'keywords to search for' },
            limit: { type: 'integer', minimum: 1, maximum: 10, description: 'how many passages (default 5)' },
          },
          required: ['query'],
          additionalProperties: false,
        },
      },
      {
        name: 'read_passage',
        description: 'Reads one passage of the document collection by its id (as returned by search_corpus).',
        input_schema: {
          type: 'object',
          properties: { id: { type: 'string', description: 'passage id' } },
          required: ['id'],
          additionalProperties: false,
        },
      },
    );
    const show = (hit: { id: string; title: string; url?: string; text: string }) => {
      // Redacted before the cut: a value cut in two matches no rule, and its first half would be shown.
      const shown = clipText(opts.redactor.text(hit.text), PASSAGE_SHOWN_CHARS);
      const title = opts.redactor.text(hit.title);
      const fresh = opts.ledger.addPassage({ ...hit, title, score: 0 }, shown);
      return { block: untrustedSource(hit.id, title, shown, hit.url), fresh };
    };
    handlers['search_corpus'] = (input) => {
      const parsed = SearchCorpusInput.safeParse(input);
      if (!parsed.success) return { content: `Invalid input: ${parsed.error.issues.map((i) => i.message).join('; ')}`, isError: true, newSources: 0 };
      const hits = passages.search(parsed.data.query, parsed.data.limit ?? 5);
      if (hits.length === 0) return { content: 'No passages matched. Try other keywords.', newSources: 0 };
      const shown = hits.map(show);
      return { content: shown.map((s) => s.block).join('\n'), newSources: shown.filter((s) => s.fresh).length };
    };
    handlers['read_passage'] = (input) => {
      const parsed = ReadPassageInput.safeParse(input);
      if (!parsed.success) return { content: `Invalid input: ${parsed.error.issues.map((i) => i.message).join('; ')}`, isError: true, newSources: 0 };
      const hit = passages.get(parsed.data.id);
      if (!hit) return { content: `No passage with id "${parsed.data.id}".`, isError: true, newSources: 0 };
      const s = show(hit);
      return { content: s.block, newSources: s.fresh ? 1 : 0 };
    };
  }
  return { tools, handlers };
}
