import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { MetricsController } from './metrics.controller';
import { Metrics } from './metrics.service';

@Module({
  imports: [ConfigSectionsModule],
  controllers: [MetricsController],
  providers: [Metrics],
  exports: [Metrics],
})
export class MetricsModule {}
