import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseConfig } from '../config/config.sections';
import { buildDataSourceOptions } from './data-source.options';
import { Database } from './database.service';
import { LongReads } from './long-reads.service';

@Module({
  imports: [
    ConfigSectionsModule,
    TypeOrmModule.forRootAsync({
      imports: [ConfigSectionsModule],
      inject: [DatabaseConfig],
      useFactory: (database: DatabaseConfig) => ({
        ...buildDataSourceOptions(database),
        autoLoadEntities: true,
        // Fail the boot with a clear message rather than retrying for half a minute.
        retryAttempts: 0,
      }),
    }),
  ],
  providers: [Database, LongReads],
  exports: [Database, LongReads],
})
export class DatabaseModule {}
