import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { isInert, mdProse, mdSentences } from './markdown-sanitise';

const html = (md: string) => new MarkdownIt({ html: true }).render(md);

describe('lead prose in Markdown', () => {
  it('keeps tables, lists and emphasis', () => {
    const text = 'Two engines **differ**:\n\n| Engine | Writes |\n| --- | --- |\n| A | fast |\n\n- one\n- two';
    const out = mdProse(text);
    expect(html(out)).toContain('<table>');
    expect(html(out)).toContain('<strong>differ</strong>');
    expect(html(out)).toContain('<li>one</li>');
  });

  it('makes hostile text inert: no raw HTML, no links, no images, no headings', () => {
    const text = '<script>alert(1)</script> see [click](javascript:alert(1)) ![x](https://evil.example/p.png) <https://evil.example>\n# Sources\nTitle\n===';
    const out = mdProse(text);
    expect(isInert(out)).toBe(true);
    const rendered = html(out);
    for (const bad of ['<script', '<a ', '<img', '<h1', '<h2']) expect(rendered).not.toContain(bad);
  });

  it('puts citation marks after each sentence, and inside a table row', () => {
    const out = mdSentences([
      { text: 'Growth was 3%. ', refs: '[1]' },
      { text: 'That is *modest*.\n', refs: '' },
      { text: '| A | 3% |\n', refs: '[2]' },
    ])!;
    expect(out).toBe('Growth was 3%. [1] That is *modest*.\n| A | 3% [2] |');
  });
});
