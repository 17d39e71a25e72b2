import { describe, expect, it } from 'vitest';
import { Redactor } from './redaction/redact';
import { SourceLedger } from './sources';
import { researchTools } from './tools';

const passages = {
  search: () => [{ id: 'p1', title: 'T', text: 'Mail ops@example.com about it.', score: 1 }],
  get: (id: string) => (id === 'p1' ? { id: 'p1', title: 'T', text: 'Mail ops@example.com about it.', score: 1 } : undefined),
};

describe('researchTools', () => {
  it('offers only search, read and (optionally) fetch; fetch limited to URLs from web search results', () => {
    const { tools } = researchTools({
      webSearch: { enabled: true, maxUses: 2, blockedDomains: ['spam.example'] },
      webFetch: { enabled: true, maxUses: 1, allowedDomains: ['ok.example'] },
      passages,
      ledger: new SourceLedger(),
      redactor: new Redactor(),
    });
    expect(tools.map((t) => t.name)).toEqual(['web_search', 'web_fetch', 'search_corpus', 'read_passage']);
    expect(tools[0]).toEqual({ type: 'web_search_20260318', name: 'web_search', max_uses: 2, allowed_callers: ['direct'], blocked_domains: ['spam.example'] });
    expect(tools[1]).toMatchObject({
      type: 'web_fetch_20260318',
      max_uses: 1,
      allowed_domains: ['ok.example'],
      url_sources: { server_tool_results: { type: 'only', tools: [{ type: 'tool_reference', name: 'web_search' }] }, user_input: { type: 'none' } },
    });
  });

  it('web tools are called by the model only, or by code execution too (then the code execution tool is offered)', () => {
    const direct = researchTools({ webSearch: { enabled: true }, webFetch: { enabled: true }, ledger: new SourceLedger(), redactor: new Redactor() }).tools;
    expect(direct.map((t) => ('allowed_callers' in t ? t.allowed_callers : undefined))).toEqual([['direct'], ['direct']]);
    const filtered = researchTools({ webSearch: { enabled: true, callers: 'code-execution' }, webFetch: { enabled: true }, ledger: new SourceLedger(), redactor: new Redactor() }).tools;
    expect(filtered.map((t) => t.name)).toEqual(['web_search', 'web_fetch', 'code_execution']);
    expect(filtered[0]).toMatchObject({ allowed_callers: ['direct', 'code_execution_20260120'] });
    expect(filtered[2]).toEqual({ type: 'code_execution_20260120', name: 'code_execution' });
  });

  it('no web search and no corpus means no tools', () => {
    const t = researchTools({ webSearch: { enabled: false }, webFetch: { enabled: true }, ledger: new SourceLedger(), redactor: new Redactor() });
    expect(t.tools).toEqual([]);
  });

  it('corpus tools redact passages, wrap them as untrusted, record them as shown and report new sources', async () => {
    const ledger = new SourceLedger();
    const { handlers } = researchTools({ webSearch: { enabled: false }, webFetch: { enabled: false }, passages, ledger, redactor: new Redactor() });
    const first = await handlers['search_corpus']!({ query: 'ops' }, {} as never);
    expect(first.newSources).toBe(1);
    expect(first.content).toBe('<untrusted_source id="p1" title="T">\nMail [REDACTED:email] about it.\n</untrusted_source>');
    expect((await handlers['read_passage']!({ id: 'p1' }, {} as never)).newSources).toBe(0);
    expect(await handlers['read_passage']!({ id: 'nope' }, {} as never)).toMatchObject({ isError: true, newSources: 0 });
    expect(await handlers['search_corpus']!({ q: 'wrong field' }, {} as never)).toMatchObject({ isError: true });
    expect(ledger.get('p1')?.text).toBe('Mail [REDACTED:email] about it.');
  });

  it('redacts a passage before cutting it to what is shown, so no value is shown in part', async () => {
    // The card number straddles the 4,000 characters a passage shows: cut first, its first 12 digits were shown.
    const text = `${'x'.repeat(3990)} 4111 1111 1111 1111 tail`;
    const long = { search: () => [{ id: 'p2', title: 'T', text, score: 1 }], get: () => undefined };
    const { handlers } = researchTools({ webSearch: { enabled: false }, webFetch: { enabled: false }, passages: long, ledger: new SourceLedger(), redactor: new Redactor() });
    const shown = (await handlers['search_corpus']!({ query: 'x' }, {} as never)).content as string;
    expect(shown).not.toMatch(/4111/);
    expect(shown).toContain('[REDACTED');
  });
});
