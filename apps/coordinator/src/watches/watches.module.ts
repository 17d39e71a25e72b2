import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { WATCH_QUEUE } from '@orrery/protocol';
import { EnginesModule } from '../engines/engines.module';
import { LedgerModule } from '../ledger/ledger.module';
import { RunsModule } from '../runs/runs.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { WatchRunsProcessor } from './watch-runs.processor';
import { WatchStore } from './watch-store';
import { WatchesController } from './watches.controller';
import { WatchesService } from './watches.service';

/** Questions that keep watch: REST, the watches queue's schedulers, and the comparison of each run with the last. */
@Module({
  imports: [RunsModule, LedgerModule, EnginesModule, WebhooksModule, BullModule.registerQueue({ name: WATCH_QUEUE })],
  controllers: [WatchesController],
  providers: [WatchStore, WatchesService, WatchRunsProcessor],
  exports: [WatchesService],
})
export class WatchesModule {}
