import { Module } from '@nestjs/common';
import { DecisionLogService } from './decision-log.service';
import { EventFollower } from './event-follower.service';
import { EventReader } from './event-reader';
import { RunEventsService } from './run-events.service';
import { StreamLeases } from './stream-leases';

/** Runs' event streams and decision logs: appending, reading, following live, and the streams' leases per key. */
@Module({ providers: [RunEventsService, DecisionLogService, EventFollower, EventReader, StreamLeases], exports: [RunEventsService, DecisionLogService, EventFollower, StreamLeases] })
export class EventsModule {}
