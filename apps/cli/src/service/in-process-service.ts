import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { startCoordinator } from '@orrery/coordinator';
import { startSubagents } from '@orrery/subagents';

export interface InProcessService {
  url: string;
  close(): Promise<void>;
}

/** The coordinator (on a free loopback port) and a subagent worker, in this process, which handles signals itself. */
export async function startInProcessService(): Promise<InProcessService> {
  const quiet = process.env.LOG_LEVEL === 'debug' ? undefined : (['error'] as ['error']);
  let coordinator: INestApplication | undefined;
  let workers: INestApplicationContext | undefined;
  try {
    const started = await startCoordinator({ port: 0, shutdownHooks: false, ...(quiet ? { logger: quiet } : {}) });
    coordinator = started.app;
    workers = await startSubagents({ shutdownHooks: false, ...(quiet ? { logger: quiet } : {}) });
    return {
      url: started.url,
      close: async () => {
        await workers?.close();
        await coordinator?.close();
      },
    };
  } catch (err) {
    await workers?.close().catch(() => undefined);
    await coordinator?.close().catch(() => undefined);
    throw err;
  }
}
