import { createHash } from 'node:crypto';
import type { ContentBlock, Message } from '@anthropic-ai/sdk/resources/messages';
import type { Source } from '@orrery/protocol';
import type { PassageHit } from '@orrery/engine';
import type { Redactor } from './redaction/redact';
import { clipText } from '@orrery/protocol';

/** A stable ledger id for a web page: the same URL always gets the same id, in any task of any run. */
export const webSourceId = (url: string): string => `web-${createHash('sha1').update(url).digest('hex').slice(0, 12)}`;

const MAX_SOURCE_TEXT = 200_000;
const MAX_TITLE = 500;
const MAX_URL = 2000;
const MAX_PUBLISHED = 100;

type CodeResult = Extract<ContentBlock, { type: 'code_execution_tool_result' | 'bash_code_execution_tool_result' }>;

/** The printed output of a code execution the client can read (an encrypted one it cannot). */
function stdoutOf(block: CodeResult): string {
  const c = block.content as { type: string; stdout?: string };
  return (c.type === 'code_execution_result' || c.type === 'bash_code_execution_result') && typeof c.stdout === 'string' ? c.stdout : '';
}

/**
 * Every source the model saw during one task: corpus passages (the text it was shown), web pages (the text the API
 * returned: cited passages from search, the document from fetch) and the output of code that filtered web pages.
 * Findings are checked against this text. Web text is redacted here, at intake, as passages are before they are shown,
 * so the extractor, the quotes and the report only ever see the redacted text, and the quote check runs on it.
 */
export class SourceLedger {
  private readonly sources = new Map<string, Source>();
  private readonly known: Set<string>;
  /** Web pages each code execution (by its server_tool_use id) called, for the output it prints later. */
  private readonly readByCode = new Map<string, Set<string>>();

  constructor(
    knownSourceIds: Iterable<string> = [],
    private readonly redactor?: Redactor,
  ) {
    this.known = new Set(knownSourceIds);
  }

  /** True when the id is new to this task and to the run. */
  private isNew(id: string): boolean {
    return !this.sources.has(id) && !this.known.has(id);
  }

  private appendText(src: Source, text: string): void {
    const t = text.trim();
    if (!t || src.text.includes(t)) return;
    src.text = clipText(src.text ? `${src.text}\n\n${t}` : t, MAX_SOURCE_TEXT);
  }

  private clean(text: string): string {
    return this.redactor ? this.redactor.text(text) : text;
  }

  /** Records a passage as shown to the model (already redacted); returns whether it was new. */
  addPassage(hit: PassageHit, shownText: string): boolean {
    const fresh = this.isNew(hit.id);
    let src = this.sources.get(hit.id);
    if (!src) {
      src = { id: hit.id, kind: 'passage', title: clipText(hit.title, MAX_TITLE), text: '' };
      if (hit.url) src.url = hit.url.slice(0, MAX_URL);
      this.sources.set(hit.id, src);
    }
    this.appendText(src, shownText);
    return fresh;
  }

  /**
   * Records a web page (search result, citation or fetched document), redacted; returns whether it was new. `published`
   * is a search result's `page_age`, kept as the API words it; the first one seen for a page stays.
   */
  addWeb(url: string, title: string | null | undefined, text = '', published?: string | null): boolean {
    const id = webSourceId(url);
    const fresh = this.addWebSource(id, url, title || url, text);
    const src = this.sources.get(id)!;
    const age = published ? clipText(this.clean(published).trim(), MAX_PUBLISHED) : '';
    if (age && !src.published) src.published = age;
    return fresh;
  }

  /**
   * Records a fetched page: its document text becomes the source's text, so quotes are checked against the whole page;
   * cited passages the page already holds are not kept twice, and its title replaces a placeholder.
   */
  addPage(url: string, title: string | null | undefined, text: string): boolean {
    const id = webSourceId(url);
    const fresh = this.addWebSource(id, url, title || url, '');
    const src = this.sources.get(id)!;
    const page = this.clean(text).trim();
    if (!page) return fresh;
    const before = src.text ? src.text.split('\n\n').filter((t) => t && !page.includes(t)) : [];
    src.text = clipText([page, ...before].join('\n\n'), MAX_SOURCE_TEXT);
    if (title && src.title === clipText(this.clean(url), MAX_TITLE)) src.title = clipText(this.clean(title), MAX_TITLE);
    return fresh;
  }

  private addWebSource(id: string, url: string | undefined, title: string, text: string): boolean {
    const fresh = this.isNew(id);
    let src = this.sources.get(id);
    if (!src) {
      src = { id, kind: 'web', title: clipText(this.clean(title), MAX_TITLE), text: '' };
      if (url) src.url = url.slice(0, MAX_URL);
      this.sources.set(id, src);
    }
    this.appendText(src, this.clean(text));
    return fresh;
  }

  /**
   * What a code execution printed after reading web pages: the page's own text when it read one page, else a source
   * of its own naming the pages. Either way the quotes taken from that output check out against it.
   */
  private addCodeOutput(execId: string, stdout: string): boolean {
    const urls = [...(this.readByCode.get(execId) ?? [])];
    if (!stdout.trim()) return false;
    if (urls.length === 1) {
      this.addWebSource(webSourceId(urls[0]!), urls[0], urls[0]!, stdout);
      return false; // the page itself was counted when it was read
    }
    const hosts = urls.map((u) => URL.canParse(u) ? new URL(u).host : u);
    const id = `web-${createHash('sha1').update(`code:${urls.join('\n')}:${stdout}`).digest('hex').slice(0, 12)}`;
    return this.addWebSource(id, undefined, `Web pages filtered by code${hosts.length ? `: ${[...new Set(hosts)].join(', ')}` : ''}`, stdout);
  }

  /**
   * Reads a response: web search results, fetched documents, `web_search_result_location` citations, and code
   * execution output. Returns, per server tool result block in order, how many new sources it brought (the health
   * monitor's input).
   */
  observe(message: Message): number[] {
    const yields: number[] = [];
    for (const block of message.content) {
      if (block.type === 'server_tool_use' && block.name === 'web_fetch') {
        const caller = block.caller as { type: string; tool_id?: string };
        const url = (block.input as { url?: unknown })?.url;
        if (caller?.tool_id && typeof url === 'string') {
          const read = this.readByCode.get(caller.tool_id) ?? new Set<string>();
          read.add(url);
          this.readByCode.set(caller.tool_id, read);
        }
      } else if (block.type === 'web_search_tool_result') {
        const results = Array.isArray(block.content) ? block.content : [];
        yields.push(results.filter((r) => this.addWeb(r.url, r.title, '', r.page_age)).length);
      } else if (block.type === 'web_fetch_tool_result') {
        const c = block.content;
        if (c.type === 'web_fetch_result') {
          const doc = c.content;
          const text = doc.source.type === 'text' ? doc.source.data : '';
          const caller = (block as { caller?: { tool_id?: string } }).caller;
          if (caller?.tool_id) this.readByCode.set(caller.tool_id, new Set([...(this.readByCode.get(caller.tool_id) ?? []), c.url]));
          yields.push(this.addPage(c.url, doc.title, text) ? 1 : 0);
        } else {
          yields.push(0);
        }
      } else if (block.type === 'code_execution_tool_result' || block.type === 'bash_code_execution_tool_result') {
        yields.push(this.addCodeOutput(block.tool_use_id, stdoutOf(block)) ? 1 : 0);
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
