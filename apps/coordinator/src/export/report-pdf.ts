import PDFDocument from 'pdfkit';
import { noteText, type PrintableReport } from './printable-report';

/**
 * DejaVu Sans, embedded (subset) in every PDF: it covers Latin with its accents, Greek, Cyrillic and typographic
 * punctuation (curly quotes, dashes). It has no CJK glyphs, which print as empty boxes, and pdfkit does not shape
 * right-to-left scripts.
 */
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

/** A PDF written in the service process by pdfkit: no browser. Text is drawn as text; only http(s) links are links. */
export function reportToPdf(p: PrintableReport): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: p.title, Creator: 'Orrery' }, lang: p.language ?? 'en' });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('body', FONT);
  doc.registerFont('bold', BOLD);
  const heading = (text: string, size: number) => doc.moveDown(0.6).font('bold').fontSize(size).text(text).moveDown(0.3).font('body').fontSize(11);
  heading(p.title, 20);
  for (const b of p.blocks) {
    if (b.kind === 'heading') heading(b.text, 14);
    else if (b.kind === 'item') doc.text(`• ${b.text}`, { indent: 12 });
    else doc.text(b.parts.map((t) => `${t.text}${t.notes.map((n) => `[${n}]`).join('')}`).join(' ')).moveDown(0.5);
  }
  if (p.notes.length) heading('Notes', 14);
  doc.fontSize(9);
  for (const n of p.notes) doc.text(`${n.n}. ${noteText(n)}`, n.url ? { link: n.url } : {}).moveDown(0.2);
  if (p.sources.length) heading(p.sourcesHeading, 14);
  doc.fontSize(10);
  for (const s of p.sources) doc.text(`${s.n}. ${s.title} (${s.id})${s.url ? ` ${s.url}` : ''}`, s.url ? { link: s.url } : {});
  doc.moveDown(1).fontSize(8).fillColor('#555555');
  for (const l of p.footer) doc.text(l);
  doc.end();
  return done;
}
