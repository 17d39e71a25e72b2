import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { RunIdSchema } from '@orrery/protocol';
import type { Principal } from '../auth/principal';
import { reportToMarkdown } from '../report/report-markdown';
import type { RunsService } from '../runs/runs.service';

const idOf = (variables: Record<string, string | string[]>): string => {
  const parsed = RunIdSchema.safeParse(variables.id);
  if (!parsed.success) throw new Error(`not a run id: ${String(variables.id)}`);
  return parsed.data;
};

/** `orrery://runs/{id}/report` (Markdown) and `orrery://runs/{id}/decisions` (JSON), for the caller's own runs. */
export function registerRunResources(server: McpServer, principal: Principal, runs: RunsService): void {
  server.registerResource(
    'run-report',
    new ResourceTemplate('orrery://runs/{id}/report', { list: undefined }),
    { title: "A run's cited report", mimeType: 'text/markdown' },
    async (uri, variables) => {
      const id = idOf(variables);
      const report = await runs.report(principal, id);
      if (!report) throw new Error(`the report of run ${id} is not ready: the run is ${(await runs.get(principal, id)).status}`);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: reportToMarkdown(report) }] };
    },
  );
  server.registerResource(
    'run-decisions',
    new ResourceTemplate('orrery://runs/{id}/decisions', { list: undefined }),
    { title: 'Every decision a run took, in order', mimeType: 'application/json' },
    async (uri, variables) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(await runs.decisions(principal, idOf(variables)), null, 2) }] }),
  );
}
