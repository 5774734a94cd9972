import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { EventMetrics } from './event-metrics.service';
import { MetricsModule } from './metrics.module';

/** The metrics' subscriber to the domain events (apart, so counting needs no database). */
@Module({
  imports: [EventsModule, MetricsModule],
  providers: [EventMetrics],
})
export class EventMetricsModule {}
