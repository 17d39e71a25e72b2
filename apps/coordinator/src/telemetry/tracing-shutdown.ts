import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from '@orrery/runtime';

/** Sends the spans still batched before the process exits. */
@Injectable()
export class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
}
