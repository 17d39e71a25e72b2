import type { Report } from '@orrery/protocol';
import { reportToMarkdown } from '../report/report-markdown';
import type { ExportFormat } from './export-formats';
import { printableReport } from './printable-report';
import { reportToDocx } from './report-docx';
import { reportToHtml } from './report-html';
import { reportToPdf } from './report-pdf';

/** The report in one of its formats, as the bytes to send. */
export async function renderExport(report: Report, format: ExportFormat): Promise<Buffer> {
  switch (format) {
    case 'json':
      return Buffer.from(JSON.stringify(report));
    case 'markdown':
      return Buffer.from(reportToMarkdown(report));
    case 'html':
      return Buffer.from(reportToHtml(printableReport(report)));
    case 'docx':
      return reportToDocx(printableReport(report));
    case 'pdf':
      return reportToPdf(printableReport(report));
  }
}
