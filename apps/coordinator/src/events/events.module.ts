import { Module } from '@nestjs/common';
import { DecisionLogService } from './decision-log.service';
import { EventFollower } from './event-follower.service';
import { EventReader } from './event-reader';
import { RunEventsService } from './run-events.service';
import { StreamLeases } from './stream-leases';

@Module({ providers: [RunEventsService, DecisionLogService, EventFollower, EventReader, StreamLeases], exports: [RunEventsService, DecisionLogService, EventFollower, StreamLeases] })
export class EventsModule {}
