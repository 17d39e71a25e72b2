import { createHash } from 'node:crypto';
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import type { Source } from '@orrery/protocol';
import type { PassageHit } from '../engine';

/** A stable ledger id for a web page: the same URL always gets the same id, in any task of any run. */
export const webSourceId = (url: string): string => `web-${createHash('sha1').update(url).digest('hex').slice(0, 12)}`;

const MAX_SOURCE_TEXT = 200_000;
const MAX_TITLE = 500;
const MAX_URL = 2000;

/**
 * Every source the model saw during one task: corpus passages (the text it was shown) and web pages (the text the
 * API returned: cited passages from search, the document from fetch). Findings are checked against this text.
 */
export class SourceLedger {
  private readonly sources = new Map<string, Source>();
  private readonly known: Set<string>;

  constructor(knownSourceIds: Iterable<string> = []) {
    this.known = new Set(knownSourceIds);
  }

  /** True when the id is new to this task and to the run. */
  private isNew(id: string): boolean {
    return !this.sources.has(id) && !this.known.has(id);
  }

  private appendText(src: Source, text: string): void {
    const t = text.trim();
    if (!t || src.text.includes(t)) return;
    src.text = (src.text ? `${src.text}\n\n${t}` : t).slice(0, MAX_SOURCE_TEXT);
  }

  /** Records a passage as shown to the model; returns whether it was new. */
  addPassage(hit: PassageHit, shownText: string): boolean {
    const fresh = this.isNew(hit.id);
    let src = this.sources.get(hit.id);
    if (!src) {
      src = { id: hit.id, kind: 'passage', title: hit.title.slice(0, MAX_TITLE), text: '' };
      if (hit.url) src.url = hit.url.slice(0, MAX_URL);
      this.sources.set(hit.id, src);
    }
    this.appendText(src, shownText);
    return fresh;
  }

  /** Records a web page (search result, citation or fetched document); returns whether it was new. */
  addWeb(url: string, title: string | null | undefined, text = ''): boolean {
    const id = webSourceId(url);
    const fresh = this.isNew(id);
    let src = this.sources.get(id);
    if (!src) {
      src = { id, kind: 'web', title: (title || url).slice(0, MAX_TITLE), url: url.slice(0, MAX_URL), text: '' };
      this.sources.set(id, src);
    }
    this.appendText(src, text);
    return fresh;
  }

  /**
   * Reads a response: web search results, fetched documents and `web_search_result_location` citations.
   * Returns, per server tool result block in order, how many new sources it brought (the health monitor's input).
   */
  observe(message: Message): number[] {
    const yields: number[] = [];
    for (const block of message.content) {
      if (block.type === 'web_search_tool_result') {
        const results = Array.isArray(block.content) ? block.content : [];
        yields.push(results.filter((r) => this.addWeb(r.url, r.title)).length);
      } else if (block.type === 'web_fetch_tool_result') {
        const c = block.content;
        if (c.type === 'web_fetch_result') {
          const doc = c.content;
          const text = doc.source.type === 'text' ? doc.source.data : '';
          yields.push(this.addWeb(c.url, doc.title, text) ? 1 : 0);
        } else {
          yields.push(0);
        }
      } else if (block.type === 'text') {
        for (const cit of block.citations ?? []) {
          if (cit.type === 'web_search_result_location') this.addWeb(cit.url, cit.title, cit.cited_text);
        }
      }
    }
    return yields;
  }

  get(id: string): Source | undefined {
    return this.sources.get(id);
  }
  list(): Source[] {
    return [...this.sources.values()].map((s) => ({ ...s }));
  }
  get size(): number {
    return this.sources.size;
  }
}
