import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFolderPassages } from '../sources/ingest-folder';
import { splitIntoPassages } from '../store/split-passages';
import { sentenceSpans } from '@orrery/language';

const README = `---
title: front matter is metadata
---
# widget [![npm](https://img.shields.io/npm/v/widget.svg)](https://npmjs.com/widget) [![build](https://ci.test/badge.svg)](https://ci.test)

<p align="center"><img src="logo.png" alt="logo"></p>

A tiny server for &lt;widgets&gt; &amp; gadgets, see the [full guide](https://widget.test/guide) for more.

## Installation

\`\`\`sh
npm install widget

# then start it
npx widget --port 3000
\`\`\`

## Features

- Binds to 127.0.0.1 by default, so nothing outside the machine reaches it.
- Works with bundlers, e.g. webpack and rollup, out of the box.
- Escapes \\*stars\\* and \\_underscores\\_ as text.

## Configuration

| option | default |
| --- | --- |
| \`port\` | 3000 |

<h2>HTML heading in Markdown</h2>

Written in Node.js, configured in README.md like this.
`;

const HTML = `<!doctype html><html><head><title>Guide</title><style>p { color: red }</style><script>var x = 1 < 2;</script></head>
<body><nav><a href="/">Home</a> | <a href="/docs">Docs</a></nav>
<h1>Widget guide</h1>
<p>Widgets &amp; gadgets &mdash; explained, with a <a href="https://widget.test">link</a> and <img src="x.png" alt="an image">.</p>
<h2>Running</h2>
<pre><code class="language-js">const w = require('widget');

w.listen(3000); // a &lt;comment&gt;
</code></pre>
<ul><li>First point</li><li>Second &quot;point&quot;</li></ul>
</body></html>`;

function ingest(files: Record<string, string>): ReturnType<typeof readFolderPassages> {
  const root = mkdtempSync(join(tmpdir(), 'orrery-markup-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return readFolderPassages(root);
}

/** Markup that should never reach a passage (and so a quote): links, images, escapes, entities, heading marks. */
const RAW_MARKUP = /\]\(|!\[|<\/?(?:p|a|img|div|br|h[1-6]|span|code|pre)\b[^>]*>|&[a-z]+;|&#\d+;|\\[*_`[\]#]|^#{1,6}\s|^---$/im;

describe('Markdown ingest', () => {
  const ps = ingest({ 'README.md': README });
  const byTitle = (t: string) => ps.filter((p) => p.title === t);

  it('titles each passage by file and section heading, without a badge\'s markup', () => {
    expect(ps.map((p) => p.title)).toEqual(['README.md > widget', 'README.md > Installation', 'README.md > Features', 'README.md > Configuration', 'README.md > HTML heading in Markdown']);
  });

  it('keeps a code block whole, as a fenced block with its lines and blank line', () => {
    expect(byTitle('README.md > Installation')[0]!.text).toBe('```sh\nnpm install widget\n\n# then start it\nnpx widget --port 3000\n```');
  });

  it('decodes entities and escapes, turns links into their text and drops images and front matter', () => {
    const intro = byTitle('README.md > widget')[0]!.text;
    expect(intro).toBe('A tiny server for <widgets> & gadgets, see the full guide for more.');
    expect(byTitle('README.md > Features')[0]!.text).toContain('Escapes *stars* and _underscores_ as text.');
    for (const p of ps) expect(p.text.replace(/```[\s\S]*?```/g, '')).not.toMatch(RAW_MARKUP);
    expect(ps.some((p) => p.text.includes('front matter'))).toBe(false);
  });

  it('keeps list items and table rows on lines of their own', () => {
    expect(byTitle('README.md > Features')[0]!.text.split('\n')).toHaveLength(3);
    expect(byTitle('README.md > Configuration')[0]!.text).toBe('option | default\n`port` | 3000');
  });

  it('does not cut sentences at "127." or "e.g." or inside "Node.js"', () => {
    const sentences = ps.flatMap((p) => sentenceSpans(p.text).map((s) => s.text));
    expect(sentences).toContain('- Binds to 127.0.0.1 by default, so nothing outside the machine reaches it.');
    expect(sentences).toContain('- Works with bundlers, e.g. webpack and rollup, out of the box.');
    expect(sentences).toContain('Written in Node.js, configured in README.md like this.');
  });

  it('reads each table row as a sentence of its own', () => {
    expect(sentenceSpans(byTitle('README.md > Configuration')[0]!.text).map((s) => s.text)).toEqual(['option | default', '`port` | 3000']);
  });

  it('leaves every sentence quotable verbatim from its passage', () => {
    for (const p of ps) for (const s of sentenceSpans(p.text)) expect(p.text.slice(s.start, s.end)).toBe(s.text);
  });
});

describe('HTML ingest', () => {
  const ps = ingest({ 'guide.html': HTML });

  it('reads headings, text and code; leaves out scripts, styles, navigation and images', () => {
    expect(ps.map((p) => p.title)).toEqual(['guide.html > Widget guide', 'guide.html > Running']);
    expect(ps[0]!.text).toBe('Widgets & gadgets — explained, with a link and .');
    expect(ps[1]!.text).toBe('```js\nconst w = require(\'widget\');\n\nw.listen(3000); // a <comment>\n```\n\n- First point\n- Second "point"');
    expect(ps.map((p) => p.text).join(' ')).not.toMatch(/color: red|var x|Home|Docs/);
  });
});

describe('code in passage splitting', () => {
  it('never cuts a fenced block, even one longer than a passage', () => {
    const code = Array.from({ length: 120 }, (_, i) => `line${i} = value${i}; // step ${i}.\n${i % 10 === 0 ? '\n' : ''}`).join('');
    const text = `Intro sentence here.\n\n\`\`\`js\n${code}\`\`\`\n\nA closing sentence.`;
    const chunks = splitIntoPassages(text);
    const withCode = chunks.filter((c) => c.includes('line0'));
    expect(withCode).toHaveLength(1);
    expect(withCode[0]).toContain('line119');
    expect(withCode[0]).toMatch(/```js\n[\s\S]*\n```/);
  });

  it('quotes a fenced block as one sentence', () => {
    const text = 'Run this.\n\n```sh\nnpm test. Then\n\nnpm start.\n```\n\nDone.';
    expect(sentenceSpans(text).map((s) => s.text)).toEqual(['Run this.', '```sh\nnpm test. Then\n\nnpm start.\n```', 'Done.']);
  });
});
