import { Controller, Get } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { Envelope, ok } from '../common/http/envelope';
import { Database } from '../database/database.service';

@Controller('health')
export class HealthController {
  constructor(private readonly database: Database) {}

  /** 200 while the database answers a query, 503 otherwise. */
  @Get()
  async check(): Promise<Envelope<{ status: string; database: string }>> {
    await this.database.ping().catch(() => {
      throw new AppException('SERVICE_UNAVAILABLE', { message: 'The database is unreachable' });
    });
    return ok('Service is healthy', { status: 'ok', database: 'up' });
  }
}
