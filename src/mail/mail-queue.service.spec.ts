import { Repository } from 'typeorm';
import { AppException } from '../common/errors/app.exception';
import { MailConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { SecretBox } from '../common/crypto/secret-box';
import { MailQueueMetrics } from './mail-queue-metrics';
import { MailQueue } from './mail-queue.service';
import { MailService } from './mail.service';
import { QueuedMail } from './queued-mail.entity';

describe('MailQueue.attempt', () => {
  // The claim is the first database call an attempt makes: here the database stops answering.
  const database = {
    transaction: jest.fn(() =>
      Promise.reject(
        new AppException('SERVICE_UNAVAILABLE', {
          message: 'The database did not answer in time, try again later',
        }),
      ),
    ),
  };
  const queue = new MailQueue(
    database as unknown as Database,
    {} as SecretBox,
    {} as MailService,
    { timeoutMs: 2000 } as MailConfig,
    {} as MailQueueMetrics,
    {} as Repository<QueuedMail>,
  );

  it('leaves the mail to the queue, without failing the committed change, when the database stops answering', async () => {
    await expect(queue.attempt('mail-1')).resolves.toBe(
      'The database did not answer in time, try again later',
    );
    expect(database.transaction).toHaveBeenCalledTimes(1);
  });
});
