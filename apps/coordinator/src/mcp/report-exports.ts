import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { ExportReportToolInputSchema, type ReportFileFormat, ReportFileFormatSchema, RunIdSchema } from '@orrery/protocol';
import type { Principal } from '../auth/principal';
import { EXPORT_FORMATS } from '../export/export-formats';
import { renderExport } from '../export/render-export';
import type { RunsService } from '../runs/runs.service';

/** The report as a file's resource contents: HTML as text, DOCX and PDF as base64. */
async function exportContents(runs: RunsService, principal: Principal, id: string, format: ReportFileFormat) {
  // The REST route's path: the caller's own run only, its report once it is done.
  const report = await runs.report(principal, id);
  if (!report) throw new Error(`the report of run ${id} is not ready: the run is ${(await runs.get(principal, id)).status}`);
  const { contentType, extension } = EXPORT_FORMATS[format];
  const uri = `orrery://runs/${id}/report.${extension}`;
  const mimeType = contentType.split(';')[0]!;
  const bytes = await renderExport(report, format);
  return format === 'html' ? { uri, mimeType, text: bytes.toString('utf8') } : { uri, mimeType, blob: bytes.toString('base64') };
}

/** `export_report` and `orrery://runs/{id}/report.{html,docx,pdf}`: GET /v1/research/:id/report?format= for agents. */
export function registerReportExports(server: McpServer, principal: Principal, runs: RunsService): void {
  server.registerTool(
    'export_report',
    {
      description: "A finished run's report as a file to hand on: html (self-contained page), docx (Word) or pdf, as an embedded resource (docx and pdf base64 in `blob`, html in `text`).",
      inputSchema: ExportReportToolInputSchema,
      annotations: { readOnlyHint: true },
    },
    async ({ id, format }) => ({ content: [{ type: 'resource', resource: await exportContents(runs, principal, id, format) }] }),
  );
  server.registerResource(
    'run-report-file',
    new ResourceTemplate('orrery://runs/{id}/report.{format}', { list: undefined }),
    { title: "A run's report as HTML, DOCX or PDF" },
    async (_uri, variables) => {
      const id = RunIdSchema.safeParse(variables.id);
      if (!id.success) throw new Error(`not a run id: ${String(variables.id)}`);
      const format = ReportFileFormatSchema.safeParse(variables.format);
      if (!format.success) throw new Error(`${String(variables.format)}: the report's files are .html, .docx and .pdf`);
      return { contents: [await exportContents(runs, principal, id.data, format.data)] };
    },
  );
}
