import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { MailDeliveryError } from './mail.service';

/**
 * Work a request starts and its answer does not wait for: with ACCOUNT_ENUMERATION_PROTECTION,
 * the mail, so that an answer takes as long whether or not there is an account to mail. The work
 * starts once the request's own code has returned; its failures are logged and reach no one; a
 * shutdown waits for what is under way, so a stopped service does not drop a mail it accepted.
 */
@Injectable()
export class AfterAnswer implements BeforeApplicationShutdown {
  private readonly logger = new Logger(AfterAnswer.name);
  private readonly running = new Set<Promise<void>>();

  /** `what` names the work in the log line of a failure. */
  run(what: string, client: ClientInfo | undefined, work: () => Promise<void>): void {
    const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .catch((error: unknown) => {
        const expected = error instanceof AppException || error instanceof MailDeliveryError;
        this.logger[expected ? 'warn' : 'error']({
          requestId: client?.requestId,
          msg: `${what}, after the answer, failed (${describe(error)})`,
        });
      })
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  /** Resolves once everything started so far is done. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.settled();
  }
}

/** A code or the transport's reason; a fault's stack, as the exception filter logs one. */
function describe(error: unknown): string {
  if (error instanceof AppException) return error.code;
  if (error instanceof MailDeliveryError) return error.reason;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
