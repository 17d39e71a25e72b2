import type { Report } from '@orrery/protocol';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { reportToMarkdown } from './report-markdown';

const evil = 'Dams <script>alert(1)</script> [win](javascript:alert(1)) <javascript:alert(2)>\n# Injected\n| a | b |\n`code` *em* _u_ \\ end';

const report: Report = {
  runId: 'r',
  title: evil,
  topic: evil,
  summary: `Summary of ${evil}`,
  sections: [{ title: evil, subtopicId: 's1', paragraphs: [{ text: `Claim ${evil}`, citations: [{ sourceId: 'a', quote: 'q' }] }] }],
  sources: [
    { id: 'a', title: `Source ${evil}`, url: 'javascript:alert(3)' },
    { id: 'b`) [x](javascript:y', title: 'plain', url: 'https://example.org/a b>c' },
    { id: 'c', title: 'web', url: 'https://example.org/ok?x=1' },
  ],
  coverage: { subtopics: [{ id: 's1', title: evil, evidenceCount: 1, status: 'thin' }], gaps: [evil] },
  metadata: { engine: 'corpus', corpus: 'sotu', rounds: 1, tasks: 1, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 }, generatedAt: new Date(0).toISOString(), droppedCitations: 0 },
};

describe('reportToMarkdown with hostile text', () => {
  const md = reportToMarkdown(report);
  // A permissive viewer: raw HTML on, bare URLs linked, and no link scheme refused.
  const renderer = new MarkdownIt({ html: true, linkify: true });
  renderer.validateLink = () => true;
  const html = renderer.render(md);

  it('renders no raw HTML, no javascript: link, no injected heading or table', () => {
    expect(html).not.toMatch(/<script|href="javascript:/i);
    expect(html).not.toMatch(/<h1>Injected/);
    expect((html.match(/<h1>/g) ?? []).length).toBe(1);
    expect((html.match(/<table>/g) ?? []).length).toBe(1);
    expect(html).not.toMatch(/<code>code<\/code>|<em>em<\/em>/);
  });

  it('keeps the text readable and links only well-formed http(s) URLs', () => {
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<a href="https://example.org/ok?x=1">');
    expect(html).toContain('<a href="https://example.org/a%20b%3Ec">');
    expect((html.match(/<a /g) ?? []).length).toBe(2);
  });
});

describe('reportToMarkdown with quoted code', () => {
  const code = 'npm install widget\n\n# a comment, not a heading\necho "<script>alert(1)</script>" ``` still code';
  const withCode: Report = {
    ...report,
    title: 'Install',
    summary: 'How to install.',
    sections: [{ title: 'Install', subtopicId: 's1', paragraphs: [{ text: `Install it: “\`\`\`sh\n${code}\n\`\`\`” and then *start* it.`, citations: [{ sourceId: 'a', quote: 'q' }] }] }],
    coverage: { subtopics: [], gaps: [] },
  };
  const md = reportToMarkdown(withCode);
  const renderer = new MarkdownIt({ html: true, linkify: true });
  const html = renderer.render(md);

  it('writes a code block a paragraph quotes as a fenced block, whole, that nothing inside can close', () => {
    expect(md).toContain('````sh\n' + code + '\n````');
    expect(html).toContain('<pre><code class="language-sh">npm install widget\n\n# a comment, not a heading\necho &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot; ``` still code\n</code></pre>');
    expect(html).not.toMatch(/<script|<h1>a comment/);
  });

  it('puts the citations after a closing fence on a line of their own', () => {
    const fenced: Report = { ...withCode, sections: [{ title: 'Install', subtopicId: 's1', paragraphs: [{ text: '```sh\nnpm i widget\n```', citations: [{ sourceId: 'a', quote: 'q' }] }] }] };
    expect(renderer.render(reportToMarkdown(fenced))).toContain('<pre><code class="language-sh">npm i widget\n</code></pre>\n<p>[1]</p>');
  });

  it('keeps the prose around it escaped, and the citation after it', () => {
    expect(html).toContain('<p>Install it:</p>');
    expect(html).toMatch(/<p>and then \*start\* it\. \[1\]<\/p>/);
  });
});

describe('reportToMarkdown with code in a passage', () => {
  const code = 'const q = new Queue("jobs");\nawait q.add("x", { a: 1 }); // ``` not a fence\n<script>alert(1)</script>';
  const text = `Installation: Install it first.\n\n\`\`\`js\n${code}\n\`\`\`\n\nThen *start* a worker.`;
  const md = reportToMarkdown({ ...report, sections: [{ title: 'bullmq/README.md', paragraphs: [{ text, citations: [{ sourceId: 'a', quote: text }] }] }] });
  const renderer = new MarkdownIt({ html: true });
  const html = renderer.render(md);

  it('keeps a code block as a code block, line for line, and escapes the prose around it', () => {
    expect(html).toContain('<pre><code class="language-js">const q = new Queue(&quot;jobs&quot;);\nawait q.add(&quot;x&quot;, { a: 1 }); // ``` not a fence\n&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>');
    expect(html).toContain('Then *start* a worker.');
    expect(html).not.toMatch(/<script|<em>start/);
  });
});

describe('reportToMarkdown of a report that cites nothing', () => {
  // An unanswered question: the report says so and cites no passage, after one round of two tasks.
  const unanswered: Report = {
    ...report,
    title: 'Cryptocurrency',
    summary: 'The corpus does not answer this: no passage of it mentions “cryptocurrency”. No passage shares a word with the question, so none is cited.',
    sections: [],
    sources: [],
    coverage: { subtopics: [], gaps: [] },
    metadata: { ...report.metadata, rounds: 1, tasks: 2 },
  };
  const md = reportToMarkdown(unanswered);

  it('heads no empty sources list', () => {
    expect(md).not.toMatch(/^## Sources/m);
  });

  it('says each count in the number it needs', () => {
    expect(md).toContain('1 round, 2 tasks');
  });
});
