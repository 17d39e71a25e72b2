import { z } from 'zod';

/**
 * The report's formats, in one place: what `GET /v1/research/:id/report?format=` and the CLI's `--format` take, and
 * the content type and file extension each is sent with.
 */
export const EXPORT_FORMATS = {
  json: { contentType: 'application/json; charset=utf-8', extension: 'json' },
  markdown: { contentType: 'text/markdown; charset=utf-8', extension: 'md' },
  html: { contentType: 'text/html; charset=utf-8', extension: 'html' },
  docx: { contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' },
  pdf: { contentType: 'application/pdf', extension: 'pdf' },
} as const;

/** `md` is the older spelling of markdown. */
export const ExportFormatSchema = z
  .enum(['json', 'markdown', 'md', 'html', 'docx', 'pdf'])
  .default('json')
  .transform((f) => (f === 'md' ? 'markdown' : f));
export type ExportFormat = keyof typeof EXPORT_FORMATS;

/** `GET /v1/research/:id/report`'s query. */
export const ReportQuerySchema = z.object({ format: ExportFormatSchema });
