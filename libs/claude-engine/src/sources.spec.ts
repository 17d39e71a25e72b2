import type { Message } from '@anthropic-ai/sdk/resources/messages';
import { SourceSchema } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { SourceLedger, webSourceId } from './sources';

const msg = (content: unknown[]): Message => ({ content, stop_reason: 'end_turn' }) as unknown as Message;

describe('webSourceId', () => {
  it('is stable, url-specific and shaped web-<12 hex>', () => {
    expect(webSourceId('https://a.org/x')).toBe(webSourceId('https://a.org/x'));
    expect(webSourceId('https://a.org/x')).not.toBe(webSourceId('https://a.org/y'));
    expect(webSourceId('https://a.org/x')).toMatch(/^web-[0-9a-f]{12}$/);
  });
});

describe('SourceLedger', () => {
  it('cuts a long page title without splitting an emoji in two', () => {
    const ledger = new SourceLedger();
    ledger.addWeb('https://a.org/emoji', `${'a'.repeat(499)}😀 and more`);
    const [source] = ledger.list();
    expect(source!.title).toBe('a'.repeat(499));
    expect(() => encodeURIComponent(source!.title)).not.toThrow(); // it throws on a lone surrogate
  });

  it('counts new sources per server tool result; run-known and repeated ones are not new', () => {
    const ledger = new SourceLedger([webSourceId('https://known.org')]);
    const search = (id: string, urls: string[]) => ({
      type: 'web_search_tool_result',
      tool_use_id: id,
      content: urls.map((url) => ({ type: 'web_search_result', url, title: url, encrypted_content: 'e', page_age: null })),
    });
    expect(ledger.observe(msg([search('s1', ['https://a.org', 'https://known.org']), search('s2', ['https://a.org'])]))).toEqual([1, 0]);
    expect(ledger.observe(msg([{ type: 'web_search_tool_result', tool_use_id: 's3', content: { type: 'web_search_tool_result_error', error_code: 'unavailable' } }]))).toEqual([0]);
    expect(ledger.size).toBe(2); // the known one was still seen by the model, so it is recorded
  });

  it("keeps a search result's page_age as the source's date, bounded; a null one leaves it absent", () => {
    const ledger = new SourceLedger();
    const result = (url: string, page_age: string | null) => ({ type: 'web_search_result', url, title: url, encrypted_content: 'e', page_age });
    ledger.observe(msg([{ type: 'web_search_tool_result', tool_use_id: 's1', content: [result('https://a.org', 'April 30, 2026'), result('https://b.org', null), result('https://c.org', 'x'.repeat(300))] }]));
    ledger.observe(msg([{ type: 'web_search_tool_result', tool_use_id: 's2', content: [result('https://a.org', '1 week ago'), result('https://b.org', '2 weeks ago')] }]));
    expect(ledger.get(webSourceId('https://a.org'))!.published).toBe('April 30, 2026'); // the first date seen stays
    expect(ledger.get(webSourceId('https://b.org'))!.published).toBe('2 weeks ago'); // a later result dates an undated page
    expect(ledger.get(webSourceId('https://c.org'))!.published).toHaveLength(100);
    for (const s of ledger.list()) expect(SourceSchema.safeParse(s).success).toBe(true);
    ledger.addWeb('https://d.org', 'D', 'cited');
    expect(ledger.get(webSourceId('https://d.org'))).not.toHaveProperty('published');
  });

  it('records cited text from web_search_result_location citations and fetched documents, deduplicated', () => {
    const ledger = new SourceLedger();
    const cite = { type: 'web_search_result_location', url: 'https://a.org', title: 'A', cited_text: 'Alpha fact.', encrypted_index: 'i' };
    ledger.observe(msg([{ type: 'text', text: 'x', citations: [cite, cite] }]));
    const fetched = {
      type: 'web_fetch_tool_result',
      tool_use_id: 'f1',
      content: { type: 'web_fetch_result', url: 'https://b.org', retrieved_at: null, content: { type: 'document', title: 'B', citations: null, source: { type: 'text', media_type: 'text/plain', data: 'Beta body.' } } },
    };
    expect(ledger.observe(msg([fetched]))).toEqual([1]);
    expect(ledger.get(webSourceId('https://a.org'))).toMatchObject({ kind: 'web', title: 'A', text: 'Alpha fact.' });
    expect(ledger.get(webSourceId('https://b.org'))).toMatchObject({ title: 'B', text: 'Beta body.' });
  });

  it('records passages as shown', () => {
    const ledger = new SourceLedger(['p2']);
    expect(ledger.addPassage({ id: 'p1', title: 'T', text: 'raw', score: 1 }, 'shown text')).toBe(true);
    expect(ledger.addPassage({ id: 'p1', title: 'T', text: 'raw', score: 1 }, 'shown text')).toBe(false);
    expect(ledger.addPassage({ id: 'p2', title: 'T', text: 'raw', score: 1 }, 'other')).toBe(false);
    expect(ledger.get('p1')).toEqual({ id: 'p1', kind: 'passage', title: 'T', text: 'shown text' });
  });
});

describe('SourceLedger: a fetched page is the source text', () => {
  const url = 'https://stats.example.org/wind';
  const page = 'Wind supplied 12% of power in 2024.\nThe register counted 431 turbines in March 2025, up from 380.';
  const fetched = msg([
    { type: 'server_tool_use', id: 's1', name: 'web_fetch', input: { url }, caller: { type: 'direct' } },
    { type: 'web_fetch_tool_result', tool_use_id: 's1', caller: { type: 'direct' }, content: { type: 'web_fetch_result', url, retrieved_at: null, content: { type: 'document', title: 'Wind statistics', citations: null, source: { type: 'text', media_type: 'text/plain', data: page } } } },
  ]);
  const cited = (cited_text: string) => msg([{ type: 'text', text: 't', citations: [{ type: 'web_search_result_location', url, title: url, cited_text, encrypted_index: 'i' }] }]);

  it('replaces the cited snippets it holds, keeps those it does not, and takes the page title', () => {
    const ledger = new SourceLedger();
    ledger.observe(cited('Wind supplied 12% of power in 2024.'));
    ledger.observe(cited('A snippet from elsewhere on the site.'));
    ledger.observe(fetched);
    const src = ledger.get(webSourceId(url))!;
    expect(src.text).toBe(`${page}\n\nA snippet from elsewhere on the site.`);
    expect(src.title).toBe('Wind statistics');
  });
});
