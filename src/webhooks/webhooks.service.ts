import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { AppException } from '../common/errors/app.exception';
import { Database } from '../database/database.service';
import { DomainEvents } from '../events/domain-events.service';
import { SecretBox } from '../common/crypto/secret-box';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { WebhookAddressPolicy } from './webhook-address.policy';
import { DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { newId } from './webhook-ids';
import { newWebhookSecret } from './webhook-signature';
import { Webhook } from './webhook.entity';

/** Through a rotation the previous secret signs beside the new one this long. */
const ROTATION_OVERLAP_MS = 24 * 3600_000;
/** The delivery log's length: the newest first. */
export const DELIVERY_LOG_LIMIT = 100;

/** The administrators' endpoints, their secrets, their delivery log and replays. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly database: Database,
    private readonly box: SecretBox,
    private readonly addresses: WebhookAddressPolicy,
    private readonly events: DomainEvents,
    private readonly dispatcher: WebhookDispatcher,
    @InjectRepository(Webhook) private readonly webhooks: Repository<Webhook>,
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
  ) {}

  /** The endpoint and its secret, which no other answer shows. */
  async create(input: CreateWebhookDto): Promise<{ webhook: Webhook; secret: string }> {
    const url = await this.addresses.check(input.url);
    const secret = newWebhookSecret();
    const now = new Date();
    const webhook: Webhook = {
      id: newId('wh'),
      url,
      events: JSON.stringify(subscription(input.events)),
      enabled: true,
      description: input.description ?? null,
      secret: this.box.seal(secret),
      previousSecret: null,
      previousSecretUntil: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.webhooks.insert(webhook);
    return { webhook, secret };
  }

  list(): Promise<Webhook[]> {
    return this.webhooks.find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async update(id: string, input: UpdateWebhookDto): Promise<Webhook> {
    const url = input.url === undefined ? undefined : await this.addresses.check(input.url);
    const updated = await this.database.transaction(async (manager) => {
      const webhook = await this.find(manager, id);
      if (url !== undefined) webhook.url = url;
      if (input.events !== undefined) webhook.events = JSON.stringify(subscription(input.events));
      if (input.description !== undefined) webhook.description = input.description;
      if (input.enabled !== undefined) webhook.enabled = input.enabled;
      webhook.updatedAt = new Date();
      await manager.withRepository(this.webhooks).save(webhook);
      return webhook;
    });
    // Enabled again: what waited for it is due.
    if (updated.enabled) this.dispatcher.wake();
    return updated;
  }

  /** The endpoint, its deliveries and their attempts. */
  async remove(id: string): Promise<void> {
    const result = await this.webhooks.delete({ id });
    if (!result.affected) throw notFound();
  }

  /** A new secret, shown once; the one it replaces signs beside it for 24 hours. */
  async rotateSecret(id: string): Promise<string> {
    const secret = newWebhookSecret();
    await this.database.transaction(async (manager) => {
      const webhook = await this.find(manager, id);
      const now = new Date();
      webhook.previousSecret = webhook.secret;
      webhook.previousSecretUntil = new Date(now.getTime() + ROTATION_OVERLAP_MS);
      webhook.secret = this.box.seal(secret);
      webhook.updatedAt = now;
      await manager.withRepository(this.webhooks).save(webhook);
    });
    return secret;
  }

  /** `webhook.test`, to this endpoint only, through the outbox as any event. */
  async test(id: string): Promise<void> {
    await this.database.transaction(async (manager) => {
      await this.find(manager, id);
      await this.events.publish(manager, { type: 'webhook.test', data: { webhookId: id } });
    });
  }

  /** The newest first, at most DELIVERY_LOG_LIMIT. */
  async deliveriesOf(id: string, status?: DeliveryStatus): Promise<WebhookDelivery[]> {
    return this.database.run(async (manager) => {
      await this.find(manager, id, false);
      return manager.withRepository(this.deliveries).find({
        where: { webhookId: id, ...(status ? { status } : {}) },
        order: { createdAt: 'DESC', id: 'DESC' },
        take: DELIVERY_LOG_LIMIT,
      });
    });
  }

  /**
   * Sends a delivery again, with its `webhook-id`: one more attempt for a failed one (its
   * schedule is spent), a replay of a delivered one. A pending one is made due now.
   */
  async retry(id: string, deliveryId: string): Promise<WebhookDelivery> {
    const delivery = await this.database.transaction(async (manager) => {
      await this.find(manager, id);
      const rows = manager.withRepository(this.deliveries);
      const found = await rows.findOne({
        where: { id: deliveryId, webhookId: id },
        lock: this.database.rowLock,
      });
      if (!found) {
        throw new AppException('WEBHOOK_NOT_FOUND', {
          message: 'No such delivery of this webhook',
        });
      }
      // A claimed one is being sent now: its attempt decides.
      if (found.status === 'pending' && found.claim) return found;
      Object.assign(found, { status: 'pending', nextAttemptAt: new Date(), finishedAt: null });
      await rows.update(
        { id: found.id },
        { status: 'pending', nextAttemptAt: found.nextAttemptAt, finishedAt: null },
      );
      return found;
    });
    this.dispatcher.wake();
    return delivery;
  }

  private async find(manager: EntityManager, id: string, lock = true): Promise<Webhook> {
    const webhook = await manager
      .withRepository(this.webhooks)
      .findOne({ where: { id }, lock: lock ? this.database.rowLock : undefined });
    if (!webhook) throw notFound();
    return webhook;
  }
}

/** `["*"]` when the list has it; otherwise the names, each once. */
function subscription(events: readonly string[]): string[] {
  return events.includes('*') ? ['*'] : [...new Set(events)];
}

function notFound(): AppException {
  return new AppException('WEBHOOK_NOT_FOUND');
}
