/**
 * `export_report` over /mcp on a real coordinator and worker: the report as HTML, DOCX and PDF, each an embedded
 * resource read back as a reader's tools read it, through the REST route's ownership (another key is refused).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Report } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxText, htmlText, pdfText, squash } from '../support/report-files';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';
import { call, callError } from './mcp-cases';

const A = newApiKey();
const B = newApiKey();

type Resource = { uri: string; mimeType?: string; text?: string; blob?: string };
const resourceOf = (r: { content?: unknown }) => {
  const [item, ...rest] = r.content as Array<{ type: string; resource?: Resource }>;
  expect(rest).toEqual([]);
  expect(item!.type).toBe('resource');
  return item!.resource!;
};

describe('export_report over MCP', () => {
  let stack: Stack;
  let a: Client;
  let b: Client;
  let id: string;
  let report: Report;
  const connect = async (key: string) => {
    const client = new Client({ name: 'orrery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    return client;
  };

  beforeAll(async () => {
    stack = await startStack('mcp-exports', { workers: 1, env: { API_KEYS: `${A},${B}`, HOST: '127.0.0.1' } });
    [a, b] = await Promise.all([connect(A), connect(B)]);
    const started = await call(a, 'research', { topic: 'How is the Kestrel River managed?', wait: true, timeout_seconds: 120 }, { timeout: 150_000 });
    id = (started.structuredContent as { id: string }).id;
    report = (await (await fetch(`${stack.coordinator.url}/v1/research/${id}/report`, { headers: { authorization: `Bearer ${A}` } })).json()) as Report;
  }, 180_000);
  afterAll(async () => {
    await a?.close().catch(() => undefined);
    await b?.close().catch(() => undefined);
    await stack?.stop();
  });

  it('gives DOCX and PDF as base64 blobs a reader opens, and HTML as text, each holding the title and every quote', async () => {
    const quotes = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.quote).filter((q): q is string => !!q)));
    expect(quotes.length).toBeGreaterThan(0);

    const docx = resourceOf(await call(a, 'export_report', { id, format: 'docx' }));
    expect(docx).toMatchObject({ uri: `orrery://runs/${id}/report.docx`, mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' });
    expect(docx.text).toBeUndefined();
    const docxBytes = Buffer.from(docx.blob!, 'base64');
    expect(docxBytes.subarray(0, 2).toString()).toBe('PK');
    expect(docxText(docxBytes)).toContain(report.title);

    const pdf = resourceOf(await call(a, 'export_report', { id, format: 'pdf' }));
    expect(pdf).toMatchObject({ uri: `orrery://runs/${id}/report.pdf`, mimeType: 'application/pdf' });
    const pdfBytes = Buffer.from(pdf.blob!, 'base64');
    expect(pdfBytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(pdfBytes);
    expect(text).toContain(squash(report.title));
    for (const q of quotes) expect(text).toContain(squash(q));

    const html = resourceOf(await call(a, 'export_report', { id, format: 'html' }));
    expect(html).toMatchObject({ uri: `orrery://runs/${id}/report.html`, mimeType: 'text/html' });
    expect(html.blob).toBeUndefined();
    const page = htmlText(html.text!);
    expect(page).toContain(`<h1>${report.title}</h1>`);
    for (const q of quotes) expect(page).toContain(q.replace(/\s+/g, ' '));
    for (const s of report.sources) expect(page).toContain(`(${s.id})`);
  });

  it('reads the embedded resource’s URI back as the same file', async () => {
    const read = await a.readResource({ uri: `orrery://runs/${id}/report.pdf` });
    const [pdf] = read.contents as Resource[];
    expect(pdf).toMatchObject({ uri: `orrery://runs/${id}/report.pdf`, mimeType: 'application/pdf' });
    expect(pdfText(Buffer.from(pdf!.blob!, 'base64'))).toContain(squash(report.title));
    await expect(a.readResource({ uri: `orrery://runs/${id}/report.exe` })).rejects.toThrow(/\.html, \.docx and \.pdf/);
  });

  it('refuses another key’s run, an unknown format, and a run without its report yet', async () => {
    for (const format of ['docx', 'pdf', 'html']) expect(await callError(b, 'export_report', { id, format })).toMatch(/not found/);
    await expect(b.readResource({ uri: `orrery://runs/${id}/report.docx` })).rejects.toThrow(/not found/);
    expect(await callError(a, 'export_report', { id, format: 'odt' })).toMatch(/format must be html, docx or pdf/);
    const queued = await call(a, 'research', { topic: 'a slow simulated topic about tides', engine: 'simulated', review: 'plan' });
    const waiting = (queued.structuredContent as { id: string }).id;
    expect(await callError(a, 'export_report', { id: waiting, format: 'pdf' })).toMatch(/not ready/);
  });
});
