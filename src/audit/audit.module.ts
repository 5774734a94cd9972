import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEvent } from './audit-event.entity';
import { DatabaseModule } from '../database/database.module';
import { EventsModule } from '../events/events.module';
import { AuditTrail } from './audit-trail.service';

/** The audit trail: a subscriber to the domain events, written in the change's transaction. */
@Module({
  imports: [DatabaseModule, EventsModule, TypeOrmModule.forFeature([AuditEvent])],
  providers: [AuditTrail],
  exports: [AuditTrail],
})
export class AuditModule {}
