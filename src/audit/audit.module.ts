import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { MetricsModule } from '../metrics/metrics.module';
import { AuditTrail } from './audit-trail.service';

@Module({
  imports: [DatabaseModule, MetricsModule],
  providers: [AuditTrail],
  exports: [AuditTrail],
})
export class AuditModule {}
