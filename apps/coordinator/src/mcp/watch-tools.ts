import type { McpServer } from '@modelcontextprotocol/server';
import { CreateWatchToolInputSchema, WatchActionToolInputSchema } from '@orrery/protocol';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { WatchesService } from '../watches/watches.service';
import { jsonResult } from './tool-results';

/** create_watch, list_watches, change_watch: the REST API's watch routes, as tools, for the caller's own watches. */
export function registerWatchTools(server: McpServer, principal: Principal, watches: WatchesService): void {
  server.registerTool(
    'create_watch',
    {
      description:
        'Ask a question again on a schedule (every: seconds or "15m", "1h", "1d"; the server sets a minimum). Each run is compared with the last: new sources, findings no longer supported, a changed answer; list_watches shows what changed, and the webhook (if any) gets watch.changed only when something did. Each run counts against this key\'s quotas.',
      inputSchema: CreateWatchToolInputSchema,
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    async (input) => jsonResult({ ...(await watches.create(principal, input)) }),
  );
  server.registerTool(
    'list_watches',
    { description: "This key's watches, each with its runs and what changed in each.", inputSchema: z.strictObject({}), annotations: { readOnlyHint: true } },
    async () => jsonResult({ watches: await watches.list(principal) }),
  );
  server.registerTool(
    'change_watch',
    { description: 'Pause a watch (no more runs until resumed), resume it (a run at once, then on its schedule), or delete it.', inputSchema: WatchActionToolInputSchema, annotations: { destructiveHint: true, idempotentHint: true } },
    async ({ id, action }) => {
      if (action === 'delete') {
        await watches.remove(principal, id);
        return jsonResult({ id, deleted: true });
      }
      return jsonResult({ ...(action === 'pause' ? await watches.pause(principal, id) : await watches.resume(principal, id)) });
    },
  );
}
