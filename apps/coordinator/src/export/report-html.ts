import type { PrintableReport } from './printable-report';

/** What the page may do: nothing loaded, nothing run; only its own inline style. Sent as a header and in a meta tag. */
export const REPORT_HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const link = (url: string, text: string) => `<a href="${esc(url)}" rel="noopener noreferrer nofollow">${esc(text)}</a>`;

const STYLE = `body{font:16px/1.55 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.7rem}h2{font-size:1.25rem;margin-top:2rem}sup a{text-decoration:none}p{white-space:pre-wrap}
ol.notes{font-size:.9rem}blockquote{margin:.2rem 0 .6rem 1rem;color:#444}footer{margin-top:2rem;font-size:.85rem;color:#555}`;

/**
 * A self-contained HTML page: every piece of the report's text escaped, citations as numbered footnotes linking to
 * their note (and the note to its source when the source's link is http or https), and nothing loaded from outside.
 */
export function reportToHtml(p: PrintableReport): string {
  const refs = (notes: number[]) => notes.map((n) => `<sup id="ref-${n}"><a href="#note-${n}">[${n}]</a></sup>`).join('');
  const body = p.blocks.map((b) => {
    if (b.kind === 'heading') return `<h2>${esc(b.text)}</h2>`;
    if (b.kind === 'item') return `<ul><li>${esc(b.text)}</li></ul>`;
    return `<p>${b.parts.map((t) => `${esc(t.text)}${refs(t.notes)}`).join(' ')}</p>`;
  });
  const notes = p.notes.map((n) => {
    const title = n.url ? link(n.url, n.title) : esc(n.title);
    const quote = n.quote ? `<blockquote>“${esc(n.quote)}”</blockquote>` : '';
    return `<li id="note-${n.n}"><a href="#ref-${n.n}">↑</a> [${n.source}] ${title} (${esc(n.sourceId)})${quote}</li>`;
  });
  const sources = p.sources.map((s) => `<li>${s.url ? link(s.url, s.title) : esc(s.title)} (${esc(s.id)})${s.url ? ` <small>${esc(s.url)}</small>` : ''}</li>`);
  return `<!doctype html>
<html lang="${esc(p.language ?? 'en')}"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_HTML_CSP}">
<meta name="referrer" content="no-referrer">
<title>${esc(p.title)}</title><style>${STYLE}</style></head>
<body><h1>${esc(p.title)}</h1>
${body.join('\n')}
${notes.length ? `<h2>Notes</h2><ol class="notes">${notes.join('\n')}</ol>` : ''}
${sources.length ? `<h2>${esc(p.sourcesHeading)}</h2><ol>${sources.join('\n')}</ol>` : ''}
<footer>${p.footer.map((l) => `<div>${esc(l)}</div>`).join('')}</footer>
</body></html>
`;
}

