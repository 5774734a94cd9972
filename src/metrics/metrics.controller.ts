import { Controller, Get, Headers, Res } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { FastifyReply } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { AppException } from '../common/errors/app.exception';
import { MetricsConfig } from '../config/config.sections';
import { Metrics } from './metrics.service';

/**
 * Prometheus text at `/metrics` (outside `/api/v1`), only when METRICS_TOKEN is set, and only for
 * a scraper that sends it as a bearer token. Not rate-limited: a scraper calls every few seconds.
 */
@Controller('metrics')
@SkipThrottle({ general: true, auth: true })
export class MetricsController {
  private readonly token: Buffer | undefined;

  constructor(
    private readonly metrics: Metrics,
    config: MetricsConfig,
  ) {
    this.token = config.token === undefined ? undefined : Buffer.from(`Bearer ${config.token}`);
  }

  @Get()
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (!this.token) throw new AppException('NOT_FOUND');
    const given = Buffer.from(authorization ?? '');
    if (given.length !== this.token.length || !timingSafeEqual(given, this.token)) {
      throw new AppException('INVALID_TOKEN', { message: 'The metrics token is missing or wrong' });
    }
    void reply.header('content-type', this.metrics.registry.contentType);
    return this.metrics.registry.metrics();
  }
}
