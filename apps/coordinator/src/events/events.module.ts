import { Module } from '@nestjs/common';
import { DecisionLogService } from './decision-log.service';
import { RunEventsService } from './run-events.service';

@Module({ providers: [RunEventsService, DecisionLogService], exports: [RunEventsService, DecisionLogService] })
export class EventsModule {}
