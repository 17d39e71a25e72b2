/**
 * The report's export formats read back as a reader's tools read them (issue 47): DOCX by its XML (unzip), PDF by
 * pdftotext (poppler-utils), HTML in Chromium. Each keeps every citation, quote and source, and hostile text stays
 * inert in each: no markup made of it, no link that runs code, no request that leaves the page.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderExport } from '../../apps/coordinator/src/export/render-export';
import { launchChromium } from '../support/web-page';
import { HOSTILE, hostileReport, QUOTES, UNICODE_QUOTE } from './hostile-report';

const dir = mkdtempSync(join(tmpdir(), 'orrery-export-'));
const flat = (s: string) => s.replace(/\s+/g, ' ');
const xmlText = (xml: string) =>
  flat(
    xml
      .replace(/<\/w:p>/g, '\n')
      .replace(/<[^>]+>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&'),
  );

describe('report exports', () => {
  it('DOCX: every quote in a footnote, every source listed, hostile text kept as text and no javascript: link', async () => {
    const file = join(dir, 'report.docx');
    writeFileSync(file, await renderExport(hostileReport, 'docx'));
    const part = (name: string) => execFileSync('unzip', ['-p', file, name], { encoding: 'utf8' });
    const document = part('word/document.xml');
    const footnotes = part('word/footnotes.xml');
    const rels = part('word/_rels/document.xml.rels');
    const body = xmlText(document);
    const notes = xmlText(footnotes);
    // One footnote reference per citation, and each footnote holds its quote.
    expect(document.match(/<w:footnoteReference /g)).toHaveLength(3);
    for (const q of QUOTES) expect(notes).toContain(q);
    for (const s of hostileReport.sources) expect(body).toContain(s.title);
    expect(body).toContain(HOSTILE.title);
    expect(body).toContain(HOSTILE.paragraph);
    // Hostile text is character data, never elements; only the https source is a hyperlink.
    expect(document).not.toMatch(/<script|<iframe|<img /);
    expect(rels).not.toContain('javascript:');
    expect(rels).toContain('https://example.org/barrages?a=1&amp;b=2');
    expect(body).toMatch(/By phase: plan \$\d+\.\d{4}, research \$\d+\.\d{4}, writing \$\d+\.\d{4}/);
  });

  it('PDF: pdftotext reads every quote, source and the bill; accents and curly quotes survive; no javascript: action', async () => {
    const file = join(dir, 'report.pdf');
    const pdf = await renderExport(hostileReport, 'pdf');
    writeFileSync(file, pdf);
    // Compared without whitespace: pdfkit wraps long lines wherever it may break, and pdftotext reads each break as a space.
    const squash = (s: string) => s.replace(/\s+/g, '');
    const text = squash(execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }));
    for (const q of QUOTES) expect(text).toContain(squash(q));
    expect(text).toContain(squash(UNICODE_QUOTE));
    for (const s of hostileReport.sources) expect(text).toContain(squash(s.title));
    expect(text).toContain(squash(HOSTILE.title));
    expect(text).toMatch(/Bymodel:claude-opus-5-5\$\d+\.\d{4},claude-sonnet-5-5\$\d+\.\d{4}/);
    const raw = pdf.toString('latin1');
    expect(raw).not.toMatch(/javascript:|\/JavaScript|\/JS\b|\/Launch/);
    expect(raw).toContain('/URI (https://example.org/barrages?a=1&b=2)');
    // The font is embedded: the PDF reads the same on a machine without DejaVu.
    expect(execFileSync('pdffonts', [file], { encoding: 'utf8' })).toMatch(/DejaVuSans\S*\s+CID TrueType\s+Identity-H\s+yes\s+yes/);
  });

  describe('HTML in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('is self-contained: nothing requested beyond the page, no script runs, every citation a footnote with its quote and link', async () => {
      const html = (await renderExport(hostileReport, 'html')).toString('utf8');
      const page = await browser.newPage();
      const requests: string[] = [];
      const dialogs: string[] = [];
      page.on('dialog', (d) => (dialogs.push(d.message()), void d.dismiss()));
      // The page is served from a host of its own; anything else it asks for is recorded (and refused).
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url === 'http://report.test/') return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });
        requests.push(url);
        return route.abort();
      });
      page.on('request', (r) => r.url() !== 'http://report.test/' && requests.push(r.url()));
      await page.goto('http://report.test/', { waitUntil: 'load' });
      await page.waitForTimeout(300);
      expect(requests).toEqual([]);
      expect(dialogs).toEqual([]);
      // Evaluated in the page: nothing that needs the test transpiler's helpers (no spread).
      const seen = await page.evaluate(() => ({
        pwned: (window as unknown as { __pwned?: number }).__pwned,
        scripts: document.querySelectorAll('script, iframe, img').length,
        jsLinks: Array.from(document.querySelectorAll('a')).filter((a) => !/^(https?:|#)/.test(a.getAttribute('href') ?? '')).length,
        refs: document.querySelectorAll('sup a[href^="#note-"]').length,
        notes: Array.from(document.querySelectorAll('ol.notes li')).map((li) => li.textContent ?? ''),
        links: Array.from(document.querySelectorAll('ol.notes a[href^="http"]')).map((a) => a.getAttribute('href')),
        title: document.querySelector('h1')?.textContent,
        text: document.body.innerText,
      }));
      expect(seen.pwned).toBeUndefined();
      expect(seen.scripts).toBe(0);
      expect(seen.jsLinks).toBe(0);
      expect(seen.refs).toBe(3);
      expect(seen.notes).toHaveLength(3);
      QUOTES.forEach((q, i) => expect(seen.notes[i]).toContain(q));
      expect(seen.links).toEqual(['https://example.org/barrages?a=1&b=2']);
      expect(seen.title).toBe(HOSTILE.title);
      for (const s of hostileReport.sources) expect(seen.text).toContain(s.title);
      expect(seen.text).toContain('Cache: saved $');
      // A footnote mark leads to its note.
      await page.locator('sup a[href="#note-2"]').click();
      expect(await page.evaluate(() => location.hash)).toBe('#note-2');
      await page.close();
    });
  });
});
