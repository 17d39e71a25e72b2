import type { Report } from '@orrery/protocol';
import { addUsage, emptyUsage, inPhase } from '@orrery/engine';
import { DEFAULT_PRICES, usageOf } from '@orrery/claude-engine';

/** Text a source or a model could put in a report to break out of it: markup, script, links that run code. */
export const HOSTILE = {
  title: 'Floods <script>window.__pwned = 1</script> & dams',
  sourceTitle: '<img src="http://evil.test/pixel.png" onerror="window.__pwned = 2"> [click](javascript:window.__pwned=3)',
  jsUrl: 'javascript:window.__pwned=4',
  paragraph: 'The 1968 flood <iframe src="http://evil.test/frame"></iframe> **bold** <a href="javascript:alert(1)">x</a> reshaped the valley.',
};

/** Unicode the formats must keep: curly quotes, accents, a dash. */
export const UNICODE_QUOTE = 'Le barrage « Café-déjà vu » fut achevé en 1973 — “naïve” hopes, ‘mixed’ results.';

const usage = (() => {
  const u = emptyUsage();
  addUsage(u, inPhase(usageOf({ input_tokens: 2000, output_tokens: 800 }, 'claude-opus-5-5', DEFAULT_PRICES), 'plan'));
  addUsage(u, inPhase(usageOf({ input_tokens: 5000, output_tokens: 1500, cache_read_input_tokens: 40_000, server_tool_use: { web_search_requests: 4, web_fetch_requests: 2 } }, 'claude-sonnet-5-5', DEFAULT_PRICES), 'research'));
  addUsage(u, inPhase(usageOf({ input_tokens: 9000, output_tokens: 3000 }, 'claude-opus-5-5', DEFAULT_PRICES), 'writing'));
  return u;
})();

/** A report holding hostile text in every field a renderer prints, and three citations with quotes. */
export const hostileReport: Report = {
  runId: '00000000-0000-4000-8000-000000000001',
  title: HOSTILE.title,
  topic: 'Kestrel River',
  summary: 'Summary text.',
  summarySentences: [{ text: 'The river was dammed in 1973.', citations: [{ sourceId: 'web-1', quote: UNICODE_QUOTE }] }],
  sections: [
    {
      title: 'History </h2><script>window.__pwned = 5</script>',
      paragraphs: [
        { text: HOSTILE.paragraph, citations: [{ sourceId: 'web-2', quote: 'Water rose <b>nine</b> feet in "one" night.' }] },
        { text: 'Fish counts fell by half.', citations: [{ sourceId: 'kr-7', quote: 'salmon counts fell by half between 1970 and 1990' }] },
      ],
    },
  ],
  sources: [
    { id: 'web-1', title: 'Les barrages de la Kestrel — histoire', url: 'https://example.org/barrages?a=1&b=2' },
    { id: 'web-2', title: HOSTILE.sourceTitle, url: HOSTILE.jsUrl },
    { id: 'kr-7', title: 'Kestrel fisheries survey' },
  ],
  coverage: { subtopics: [{ id: 's1', title: 'History', evidenceCount: 3, status: 'covered' }], gaps: ['<script>gap</script>'] },
  metadata: { engine: 'anthropic', rounds: 1, tasks: 2, usage, generatedAt: '2026-12-06T06:00:00.000Z', droppedCitations: 0 },
};

/** Every quote the report cites. */
export const QUOTES = [UNICODE_QUOTE, 'Water rose <b>nine</b> feet in "one" night.', 'salmon counts fell by half between 1970 and 1990'];
