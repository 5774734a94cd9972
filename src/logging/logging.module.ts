import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { ConfigSectionsModule } from '../config/config.module';
import { LogConfig } from '../config/config.sections';
import { LogOutput } from './log-output';
import { LogStyle } from './log-style';
import { pinoOptions } from './pino.options';
import { readableLines } from './readable-lines';
import { StartLog } from './start-log';

/**
 * Holds the output, so the logger's factory can inject it and a test can replace it, and the
 * style that follows from it: readable lines for a terminal when LOG_FORMAT allows, else JSON.
 */
@Module({
  imports: [ConfigSectionsModule],
  providers: [
    { provide: LogOutput, useFactory: () => new LogOutput() },
    {
      provide: LogStyle,
      inject: [LogConfig, LogOutput],
      useFactory: (log: LogConfig, output: LogOutput) =>
        new LogStyle(
          log.readable === 'always' || (log.readable === 'on-terminal' && output.terminal),
        ),
    },
  ],
  exports: [LogOutput, LogStyle],
})
class LogOutputModule {}

/** Every log line of the service (pino through nestjs-pino): JSON, or readable on a terminal. */
@Module({
  imports: [
    ConfigSectionsModule,
    LogOutputModule,
    LoggerModule.forRootAsync({
      imports: [ConfigSectionsModule, LogOutputModule],
      inject: [LogConfig, LogOutput, LogStyle],
      useFactory: (log: LogConfig, output: LogOutput, style: LogStyle) => ({
        pinoHttp: pinoOptions(
          log,
          style.readable ? readableLines(output.stream(true)) : output.stream(false),
        ),
        // No pino-http middleware: request-log.ts writes each request's line.
        forRoutes: [],
      }),
    }),
  ],
  providers: [StartLog],
  exports: [LoggerModule, StartLog],
})
export class LoggingModule {}
