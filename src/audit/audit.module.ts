import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEvent } from './audit-event.entity';
import { DatabaseModule } from '../database/database.module';
import { MetricsModule } from '../metrics/metrics.module';
import { AuditTrail } from './audit-trail.service';

@Module({
  imports: [DatabaseModule, MetricsModule, TypeOrmModule.forFeature([AuditEvent])],
  providers: [AuditTrail],
  exports: [AuditTrail],
})
export class AuditModule {}
