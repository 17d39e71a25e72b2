import { startTracing } from '@orrery/runtime';
startTracing('orrery-coordinator');
import { startCoordinator } from './bootstrap';

startCoordinator().catch((err) => {
  console.error(`coordinator failed to start: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
