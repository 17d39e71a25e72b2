import { startTracing } from '@orrery/runtime';
startTracing('orrery-worker');
import { startSubagents } from './bootstrap';

startSubagents().catch((err) => {
  console.error(`subagent worker failed to start: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
