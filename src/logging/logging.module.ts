import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { DestinationStream } from 'pino';
import { ConfigSectionsModule } from '../config/config.module';
import { LogConfig } from '../config/config.sections';
import { pinoOptions } from './pino.options';

/** `false`: no logging at all (an embedding app's own logger takes Nest's lines). */
export type LogsOption = false | { destination?: DestinationStream };

/** Every log line of the service as JSON (pino through nestjs-pino). */
@Module({})
export class LoggingModule {
  static forRoot({ destination }: { destination?: DestinationStream } = {}): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          imports: [ConfigSectionsModule],
          inject: [LogConfig],
          useFactory: (log: LogConfig) => ({
            pinoHttp: pinoOptions(log, destination),
            // No pino-http middleware: request-log.ts writes each request's line.
            forRoutes: [],
          }),
        }),
      ],
      exports: [LoggerModule],
    };
  }
}
