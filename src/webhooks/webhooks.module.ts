import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { EventsModule } from '../events/events.module';
import { MetricsModule } from '../metrics/metrics.module';
import { SecretBox } from '../common/crypto/secret-box';
import { WebhookAddressPolicy } from './webhook-address.policy';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WebhookClaims } from './webhook-claims';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookOutbox } from './webhook-outbox.service';
import { WebhookSender } from './webhook-sender';
import { Webhook } from './webhook.entity';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Webhooks (docs/webhooks.md): the domain events, stored as deliveries in each change's
 * transaction (WebhookOutbox), sent by every instance's workers (WebhookDispatcher), and the
 * administrators' routes. SecretBox seals the endpoints' secrets under MFA_ENCRYPTION_KEY, as it
 * seals the second factor's.
 */
@Module({
  imports: [
    ConfigSectionsModule,
    DatabaseModule,
    EventsModule,
    MetricsModule,
    TypeOrmModule.forFeature([Webhook, WebhookDelivery, WebhookAttempt]),
  ],
  controllers: [WebhooksController],
  providers: [
    SecretBox,
    WebhookAddressPolicy,
    WebhookClaims,
    WebhookDispatcher,
    WebhookMetrics,
    WebhookOutbox,
    WebhookSender,
    WebhooksService,
  ],
})
export class WebhooksModule {}
