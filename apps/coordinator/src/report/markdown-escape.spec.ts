import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { mdText } from './markdown-escape';

const md = new MarkdownIt({ html: true, linkify: false });

/** What a reader sees once a renderer has turned the escaped text into HTML: tags none, entities decoded. */
function shown(text: string): { html: string; visible: string } {
  const html = md.renderInline(mdText(text));
  const visible = html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  return { html, visible };
}

describe('mdText', () => {
  it('leaves a section title and an ampersand readable in the raw Markdown', () => {
    expect(mdText('widget/README.md > Usage')).toBe('widget/README.md > Usage');
    expect(mdText('AT&T and R&D, 3 > 2')).toBe('AT&T and R&D, 3 > 2');
  });

  it('shows every hostile text as itself once rendered: no tag, no entity, no quote block', () => {
    for (const text of [
      '<img src=x onerror=alert(1)>',
      '&lt;script&gt; stays as typed',
      '&#x3C;script> and &#60;b>',
      '> not a quote',
      '>> nor this',
      'a <b>bold</b> & &amp; mix',
      '[link](javascript:alert(1)) *em* `code`',
    ]) {
      const { html, visible } = shown(text);
      expect(html, text).not.toMatch(/<(?!\/?p>)[a-z/]/i);
      expect(visible, text).toBe(text);
    }
  });
});
