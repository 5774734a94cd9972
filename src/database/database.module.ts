import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseConfig } from '../config/config.sections';
import { buildDataSourceOptions } from './data-source.options';
import { Database } from './database.service';
import { InstanceLock } from './instance-lock';
import { LongReads } from './long-reads.service';
import { ScheduledDataSource } from './scheduled-data-source';

@Module({
  imports: [
    ConfigSectionsModule,
    TypeOrmModule.forRootAsync({
      imports: [ConfigSectionsModule],
      extraProviders: [InstanceLock],
      inject: [DatabaseConfig, InstanceLock],
      useFactory: (database: DatabaseConfig, lock: InstanceLock) => {
        const options = buildDataSourceOptions(database);
        // Before the file is opened: a second server on it stops here.
        lock.holdFor(options);
        return {
          ...options,
          autoLoadEntities: true,
          // Fail the boot with a clear message rather than retrying for half a minute.
          retryAttempts: 0,
        };
      },
      // Repositories used directly get Database's deadline, queue and retries (see there).
      dataSourceFactory: (options) => new ScheduledDataSource(options!).initialize(),
    }),
  ],
  providers: [Database, LongReads],
  exports: [Database, LongReads],
})
export class DatabaseModule {}
