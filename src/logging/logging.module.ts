import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { ConfigSectionsModule } from '../config/config.module';
import { LogConfig } from '../config/config.sections';
import { LogOutput } from './log-output';
import { pinoOptions } from './pino.options';

/** Holds the output, so the logger's factory can inject it and a test can replace it. */
@Module({
  providers: [{ provide: LogOutput, useFactory: () => new LogOutput() }],
  exports: [LogOutput],
})
class LogOutputModule {}

/** Every log line of the service as JSON (pino through nestjs-pino). */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      imports: [ConfigSectionsModule, LogOutputModule],
      inject: [LogConfig, LogOutput],
      useFactory: (log: LogConfig, output: LogOutput) => ({
        pinoHttp: pinoOptions(log, output.stream),
        // No pino-http middleware: request-log.ts writes each request's line.
        forRoutes: [],
      }),
    }),
  ],
  exports: [LoggerModule],
})
export class LoggingModule {}
