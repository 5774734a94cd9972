import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { DomainEvents } from './domain-events.service';

/** The domain events' bus: imported by whoever publishes and whoever subscribes. */
@Module({
  imports: [DatabaseModule],
  providers: [DomainEvents],
  exports: [DomainEvents],
})
export class EventsModule {}
