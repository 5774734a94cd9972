import { Controller, Get, Header, Headers } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { timingSafeEqual } from 'node:crypto';
import { Public } from '../auth/decorators/public.decorator';
import { AppException } from '../common/errors/app.exception';
import { MetricsConfig } from '../config/config.sections';
import { ApiErrors } from '../openapi/api-responses.decorator';
import { METRICS_TOKEN_AUTH } from '../openapi/security-schemes';
import { Registry } from 'prom-client';
import { Metrics } from './metrics.service';

/**
 * Prometheus text at `/metrics` (outside `/api/v1`), only when METRICS_TOKEN is set, and only for
 * a scraper that sends it as a bearer token. Not rate-limited: a scraper calls every few seconds.
 */
@ApiTags('operations')
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
  @ApiOperation({
    operationId: 'metrics',
    summary: 'Prometheus metrics (outside /api/v1); 404 unless METRICS_TOKEN is set',
    description:
      'For a scraper that sends the METRICS_TOKEN as a bearer token; 401 with any other token ' +
      'or none. Not rate-limited.',
  })
  // No user's token: the handler checks the scraper's own, and the document names it.
  @Public()
  @ApiSecurity(METRICS_TOKEN_AUTH)
  @ApiResponse({
    status: 200,
    description: 'Prometheus text exposition format.',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiErrors('INVALID_TOKEN', 'NOT_FOUND', 'INTERNAL_ERROR')
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  async scrape(@Headers('authorization') authorization: string | undefined): Promise<string> {
    if (!this.token) throw new AppException('NOT_FOUND');
    const given = Buffer.from(authorization ?? '');
    if (given.length !== this.token.length || !timingSafeEqual(given, this.token)) {
      throw new AppException('INVALID_TOKEN', { message: 'The metrics token is missing or wrong' });
    }
    return this.metrics.registry.metrics();
  }
}
