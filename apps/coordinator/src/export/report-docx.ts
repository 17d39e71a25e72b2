import { Document, ExternalHyperlink, FootnoteReferenceRun, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
import { noteText, type PrintableReport } from './printable-report';

const linked = (url: string, text: string) => new ExternalHyperlink({ link: url, children: [new TextRun({ text, style: 'Hyperlink' })] });

/**
 * A Word document: each citation a real footnote (source, link, quote), the sources with their links, the footer with
 * the bill. docx writes every string as XML text, so nothing in the report's text becomes markup.
 */
export function reportToDocx(p: PrintableReport): Promise<Buffer> {
  const footnotes = Object.fromEntries(p.notes.map((n) => [n.n, { children: [new Paragraph({ children: [new TextRun(noteText(n))] })] }]));
  const body = p.blocks.map((b) => {
    if (b.kind === 'heading') return new Paragraph({ heading: HeadingLevel.HEADING_2, children: [new TextRun(b.text)] });
    if (b.kind === 'item') return new Paragraph({ bullet: { level: 0 }, children: [new TextRun(b.text)] });
    return new Paragraph({ children: b.parts.flatMap((t, i) => [new TextRun(`${i ? ' ' : ''}${t.text}`), ...t.notes.map((n) => new FootnoteReferenceRun(n))]) });
  });
  const sources = p.sources.map(
    (s) => new Paragraph({ children: [new TextRun(`${s.n}. `), s.url ? linked(s.url, s.title) : new TextRun(s.title), new TextRun(` (${s.id})${s.url ? ` ${s.url}` : ''}`)] }),
  );
  const doc = new Document({
    title: p.title,
    footnotes,
    sections: [
      {
        children: [
          new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun(p.title)] }),
          ...body,
          ...(sources.length ? [new Paragraph({ heading: HeadingLevel.HEADING_2, children: [new TextRun(p.sourcesHeading)] }), ...sources] : []),
          ...p.footer.map((l) => new Paragraph({ children: [new TextRun({ text: l, italics: true, size: 18 })] })),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}
