import type { McpServer } from '@modelcontextprotocol/server';
import type { EngineFactory } from '@orrery/engines';
import type { Passage } from '@orrery/passages';
import { CorpusFetchToolInputSchema, CorpusSearchToolInputSchema } from '@orrery/protocol';
import { jsonResult } from './tool-results';

const SNIPPET_CHARS = 300;

/** A result id names its corpus, so fetch(id) needs nothing else: `<corpus>:<passage id>` (corpus names have no colon). */
export const resultId = (corpus: string, passageId: string) => `${corpus}:${passageId}`;
export function parseResultId(id: string, defaultCorpus: string): { corpus: string; passageId: string } {
  const cut = id.indexOf(':');
  return cut > 0 ? { corpus: id.slice(0, cut), passageId: id.slice(cut + 1) } : { corpus: defaultCorpus, passageId: id };
}

const urlOf = (corpus: string, p: Passage) => p.url ?? `orrery://corpora/${corpus}/passages/${encodeURIComponent(p.id)}`;

/** `search` and `fetch` over a corpus the server knows, in the ChatGPT connector convention. */
export function registerCorpusTools(server: McpServer, engines: EngineFactory): void {
  const known = async (corpus: string | undefined) => {
    const name = corpus ?? engines.config.DEFAULT_CORPUS;
    if (!(await engines.knowsCorpus(name))) throw new Error(`corpus: unknown corpus "${name}"; known: ${engines.corpusNames().join(', ')}`);
    return name;
  };

  server.registerTool(
    'search',
    {
      description: 'Search a corpus (the default one unless named): ranked passages with ids, titles, URLs and snippets. Pass an id to fetch for the full passage.',
      inputSchema: CorpusSearchToolInputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, corpus, limit }) => {
      const name = await known(corpus);
      // A stored corpus is searched through the working index of the query as a topic.
      const index = await engines.passagesFor(name, query);
      if (!index) throw new Error(`corpus "${name}" has no passages loaded`);
      const results = index.search(query, limit).map((p) => ({
        id: resultId(name, p.id),
        title: p.title,
        url: urlOf(name, p),
        snippet: p.text.length > SNIPPET_CHARS ? `${p.text.slice(0, SNIPPET_CHARS)}…` : p.text,
        score: Math.round(p.score * 1000) / 1000,
      }));
      return jsonResult({ results });
    },
  );

  server.registerTool(
    'fetch',
    { description: 'The full text of a passage search returned, with its title and URL.', inputSchema: CorpusFetchToolInputSchema, annotations: { readOnlyHint: true, openWorldHint: false } },
    async ({ id, corpus }) => {
      const parsed = parseResultId(id, corpus ?? engines.config.DEFAULT_CORPUS);
      const name = await known(parsed.corpus);
      const p = await engines.passage(name, parsed.passageId);
      if (!p) throw new Error(`id: no passage ${id} in corpus ${name}`);
      return jsonResult({ id: resultId(name, p.id), title: p.title, text: p.text, url: urlOf(name, p), metadata: { corpus: name } });
    },
  );
}
