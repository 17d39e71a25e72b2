import type { Citation, Report } from '@orrery/protocol';
import { UnauthorizedError, api } from '../api.js';
import { h } from '../dom.js';
import { quoteSpan } from '../quote-span.js';
import { httpUrl } from '../safe-url.js';

type ReportSource = Report['sources'][number];

/** The cited passage (or page) in a modal dialog, its verified quote highlighted where it occurs. */
export class CitationDialog {
  readonly element = h('dialog', { id: 'citation-dialog', class: 'citation-dialog', 'aria-labelledby': 'citation-title' });

  constructor(private readonly runId: string) {
    // A click on the backdrop (outside the dialog's box) closes it, as Escape does.
    this.element.addEventListener('click', (e) => {
      if (e.target === this.element) this.element.close();
    });
  }

  async open(n: number, source: ReportSource, citation: Citation, opener: HTMLElement): Promise<void> {
    const url = httpUrl(source.url);
    const body = h('div', { class: 'passage', id: 'citation-passage', tabindex: '0', 'aria-label': 'The cited passage' }, h('p', { class: 'hint' }, 'Loading the passage…'));
    const close = h('button', { type: 'button', class: 'secondary', id: 'citation-close' }, 'Close');
    close.addEventListener('click', () => this.element.close());
    const parts = [
      h('div', { class: 'dialog-head' }, h('h2', { id: 'citation-title' }, `[${n}] `, source.title || source.id), close),
      h('p', { class: 'source-id' }, 'Source ', h('code', null, source.id)),
      url
        ? h('p', null, h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', id: 'citation-url' }, url))
        : source.url
          ? h('p', { class: 'hint' }, 'Address (not a web link, shown as text): ', h('code', null, source.url))
          : null,
      citation.quote ? h('figure', { class: 'quote' }, h('figcaption', null, 'Verified quote'), h('blockquote', { id: 'citation-quote' }, citation.quote)) : null,
      body,
    ];
    this.element.replaceChildren(...parts.filter((p) => p !== null));
    this.element.addEventListener('close', () => opener.focus(), { once: true });
    this.element.showModal();
    close.focus();
    try {
      const full = await api.source(this.runId, source.id);
      const span = citation.quote ? quoteSpan(full.text, citation.quote) : undefined;
      if (!span) {
        body.replaceChildren(h('p', null, full.text));
        return;
      }
      const mark = h('mark', { id: 'citation-mark' }, full.text.slice(span[0], span[1]));
      body.replaceChildren(h('p', null, full.text.slice(0, span[0]), mark, full.text.slice(span[1])));
      mark.scrollIntoView({ block: 'center' });
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) body.replaceChildren(h('p', { class: 'error' }, `Could not load the passage: ${(err as Error).message}`));
    }
  }
}
