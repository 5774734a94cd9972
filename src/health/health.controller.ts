import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { AppException } from '../common/errors/app.exception';
import { Envelope, ok } from '../common/http/envelope';
import { HealthDataModel } from '../openapi/api-models';
import { ApiEnvelope, ApiErrors } from '../openapi/api-responses.decorator';
import { Public } from '../auth/decorators/public.decorator';
import { Readiness } from './readiness.service';

/**
 * Liveness (`/health`: the process answers) and readiness (`/health/ready`: the database answers;
 * Redis and SMTP, when configured, are reported too), both answered without waiting on anything.
 * A load balancer takes an instance out on 503 from `ready`; an orchestrator restarts it only when `/health` stops answering, which a
 * database outage never causes. Neither is rate-limited: a load balancer probes every second or
 * so from one address, and a limit would take every instance out at once.
 */
@ApiTags('operations')
@Public()
@Controller('health')
@SkipThrottle({ general: true, auth: true })
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  @Get()
  @ApiOperation({
    operationId: 'liveness',
    summary: 'Liveness: the process answers',
    description:
      'Checks nothing else: a database outage never fails it, so an orchestrator restarts the ' +
      'process only when it stops answering. Not rate-limited.',
  })
  @ApiEnvelope(200, 'Service is alive', { data: HealthDataModel })
  @ApiErrors('INTERNAL_ERROR')
  live(): Envelope<HealthDataModel> {
    return ok('Service is alive', { status: 'ok' });
  }

  @Get('ready')
  @ApiOperation({
    operationId: 'readiness',
    summary: 'Readiness: the database answers (Redis and SMTP, when configured, are reported)',
    description:
      'Answers at once from checks made in the background (the database every second). ' +
      'Redis or SMTP down is `status: degraded` with 200; only the database makes it 503. ' +
      'Not rate-limited.',
  })
  @ApiEnvelope(200, 'Service is ready', { data: HealthDataModel })
  @ApiErrors('INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
  ready(): Envelope<HealthDataModel> {
    const checks = this.readiness.checks();
    if (checks.database !== 'up') {
      throw new AppException('SERVICE_UNAVAILABLE', {
        message: 'Not ready: the database is unreachable',
        details: [{ field: 'database', message: 'database is unreachable' }],
      });
    }
    // Without Redis or SMTP the service still serves (per-instance limits, mail refused with
    // EMAIL_SERVICE_ERROR): every instance shares them, so answering 503 would take all out.
    const down = Object.keys(checks).filter((name) => checks[name] === 'down');
    return down.length === 0
      ? ok('Service is ready', { status: 'ok', checks })
      : ok(`Service is ready, degraded: ${down.join(', ')} unreachable`, {
          status: 'degraded',
          checks,
        });
  }
}
