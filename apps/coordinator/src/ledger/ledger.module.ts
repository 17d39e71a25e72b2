import { Module } from '@nestjs/common';
import { EnginesModule } from '../engines/engines.module';
import { EventsModule } from '../events/events.module';
import { MetricsModule } from '../metrics/metrics.module';
import { LedgerStore } from './ledger.store';
import { ResultCheckService } from './result-check.service';
import { ResultIntakeService } from './result-intake.service';

/** A run's ledger, and the check and merge of each subagent result into it. */
@Module({ imports: [EnginesModule, EventsModule, MetricsModule], providers: [LedgerStore, ResultIntakeService, ResultCheckService], exports: [LedgerStore, ResultCheckService] })
export class LedgerModule {}
