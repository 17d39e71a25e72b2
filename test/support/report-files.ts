import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The text of a report file as a reader's tools read it: DOCX by its document part (unzip), PDF by pdftotext
 * (poppler-utils), HTML by its markup with the entities it escapes decoded. Whitespace runs become one space.
 */
const dir = mkdtempSync(join(tmpdir(), 'orrery-report-files-'));
let n = 0;
const flat = (s: string) => s.replace(/\s+/g, ' ');
const entities = (s: string) =>
  s
    .replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

const saved = (bytes: Buffer, extension: string) => {
  const file = join(dir, `${++n}.${extension}`);
  writeFileSync(file, bytes);
  return file;
};

/** word/document.xml's text; throws when the bytes are not a zip holding it. */
export function docxText(bytes: Buffer): string {
  const xml = execFileSync('unzip', ['-p', saved(bytes, 'docx'), 'word/document.xml'], { encoding: 'utf8' });
  return flat(entities(xml.replace(/<\/w:p>/g, '\n').replace(/<[^>]+>/g, '')));
}

/** Compared without whitespace: pdfkit wraps lines wherever it may break. */
export function pdfText(bytes: Buffer): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', saved(bytes, 'pdf'), '-'], { encoding: 'utf8' }).replace(/\s+/g, '');
}

export function htmlText(html: string): string {
  return flat(entities(html));
}

export const squash = (s: string) => s.replace(/\s+/g, '');
