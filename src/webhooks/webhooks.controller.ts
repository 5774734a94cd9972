import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { RecentlyAuthenticated } from '../auth/guards/second-factor.guard';
import { AppException } from '../common/errors/app.exception';
import { Envelope, ok } from '../common/http/envelope';
import {
  ANY_BODY,
  ApiEnvelope,
  ApiErrors,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { DELIVERY_STATUSES, DeliveryStatus } from './webhook-delivery.entity';
import {
  DeliveriesDataModel,
  DeliveryDataModel,
  NewWebhookDataModel,
  WebhookDataModel,
  WebhookSecretDataModel,
  WebhooksDataModel,
  deliveryView,
  webhookView,
} from './webhook.view';
import { DELIVERY_LOG_LIMIT, WebhooksService } from './webhooks.service';

const WEBHOOK_ID = ApiParam({ name: 'id', description: 'The endpoint id (`wh_…`).' });
/** Every route taking an `:id` answers 404 WEBHOOK_NOT_FOUND for an id no endpoint has. */
const TARGET = ['WEBHOOK_NOT_FOUND', ...STORED] as const;
const CHANGE = ['FORBIDDEN_ORIGIN'] as const;

/**
 * Webhook endpoints (docs/webhooks.md), for `role: admin` only, each route after a recent
 * sign-in (STEP_UP_MAX_AGE), as every administration route. Only administrators name the
 * addresses the service sends to.
 */
@ApiTags('admin')
@Controller('admin/webhooks')
@Authenticated('admin')
@RecentlyAuthenticated()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Add a webhook endpoint',
    description:
      'Events from now on are sent to `url`, signed as Standard Webhooks with the `secret` of ' +
      'this answer, which no other answer shows. In production the URL must be `https://` and ' +
      'must not resolve to a loopback, private or reserved address, unless the operator allows ' +
      'it (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_NETWORKS): 400 VALIDATION_ERROR.',
  })
  @ApiBody({ type: CreateWebhookDto })
  @ApiEnvelope(201, 'Webhook created', { data: NewWebhookDataModel })
  @ApiErrors(...CHANGE, ...JSON_BODY, ...STORED)
  async create(@Body() body: CreateWebhookDto): Promise<Envelope<NewWebhookDataModel>> {
    const { webhook, secret } = await this.webhooks.create(body);
    return ok('Webhook created', { webhook: { ...webhookView(webhook), secret } });
  }

  @Get()
  @ApiOperation({
    operationId: 'listWebhooks',
    summary: 'List webhook endpoints',
    description: 'Oldest first; no secrets.',
  })
  @ApiEnvelope(200, 'Webhooks', { data: WebhooksDataModel })
  @ApiErrors(...STORED)
  async list(): Promise<Envelope<WebhooksDataModel>> {
    return ok('Webhooks', { webhooks: (await this.webhooks.list()).map(webhookView) });
  }

  @Patch(':id')
  @WEBHOOK_ID
  @ApiOperation({
    operationId: 'updateWebhook',
    summary: 'Change a webhook endpoint',
    description:
      'Only the fields given change. A disabled endpoint is sent nothing: no new events are ' +
      'queued for it, and those already queued wait until it is enabled again.',
  })
  @ApiBody({ type: UpdateWebhookDto })
  @ApiEnvelope(200, 'Webhook updated', { data: WebhookDataModel })
  @ApiErrors(...CHANGE, ...JSON_BODY, ...TARGET)
  async update(
    @Param('id') id: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<Envelope<WebhookDataModel>> {
    return ok('Webhook updated', { webhook: webhookView(await this.webhooks.update(id, body)) });
  }

  @Delete(':id')
  @WEBHOOK_ID
  @ApiOperation({
    operationId: 'deleteWebhook',
    summary: 'Remove a webhook endpoint',
    description: 'With its queued deliveries and its delivery log.',
  })
  @ApiEnvelope(200, 'Webhook deleted')
  @ApiErrors(...CHANGE, ...ANY_BODY, ...TARGET)
  async remove(@Param('id') id: string): Promise<Envelope> {
    await this.webhooks.remove(id);
    return ok('Webhook deleted');
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @WEBHOOK_ID
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: "Replace a webhook endpoint's secret",
    description:
      'The new secret is shown once. For 24 hours every delivery is signed with both the new ' +
      'and the previous secret (two signatures in `webhook-signature`), so receivers can switch ' +
      'without missing one.',
  })
  @ApiEnvelope(200, 'Secret rotated', { data: WebhookSecretDataModel })
  @ApiErrors(...CHANGE, ...ANY_BODY, ...TARGET)
  async rotateSecret(@Param('id') id: string): Promise<Envelope<WebhookSecretDataModel>> {
    return ok('Secret rotated', { secret: await this.webhooks.rotateSecret(id) });
  }

  @Post(':id/test')
  @HttpCode(202)
  @WEBHOOK_ID
  @ApiOperation({
    operationId: 'testWebhook',
    summary: 'Send a test event',
    description:
      'Queues a `webhook.test` event for this endpoint only, sent as any other (its delivery ' +
      'log shows how it went).',
  })
  @ApiEnvelope(202, 'Test event queued')
  @ApiErrors(...CHANGE, ...ANY_BODY, ...TARGET)
  async test(@Param('id') id: string): Promise<Envelope> {
    await this.webhooks.test(id);
    return ok('Test event queued');
  }

  @Get(':id/deliveries')
  @WEBHOOK_ID
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: "A webhook endpoint's delivery log",
    description:
      `The newest ${DELIVERY_LOG_LIMIT} deliveries, optionally of one status. Finished ones ` +
      'are kept for 7 days.',
  })
  @ApiQuery({ name: 'status', required: false, enum: DELIVERY_STATUSES })
  @ApiEnvelope(200, 'Deliveries', { data: DeliveriesDataModel })
  @ApiErrors('VALIDATION_ERROR', ...TARGET)
  async deliveries(
    @Param('id') id: string,
    @Query('status') status?: unknown,
  ): Promise<Envelope<DeliveriesDataModel>> {
    if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) {
      const message = `status must be one of: ${DELIVERY_STATUSES.join(', ')}`;
      throw new AppException('VALIDATION_ERROR', {
        message,
        details: [{ field: 'status', message }],
      });
    }
    const found = await this.webhooks.deliveriesOf(id, status as DeliveryStatus | undefined);
    return ok('Deliveries', { deliveries: found.map(deliveryView) });
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(200)
  @WEBHOOK_ID
  @ApiParam({ name: 'delivery_id', description: 'The delivery id (`msg_…`).' })
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery again',
    description:
      'With the same `webhook-id`: one more attempt for a failed delivery, a replay of a ' +
      'delivered one; a pending one is tried now. 404 WEBHOOK_NOT_FOUND for a delivery this ' +
      'endpoint does not have.',
  })
  @ApiEnvelope(200, 'Delivery queued', { data: DeliveryDataModel })
  @ApiErrors(...CHANGE, ...ANY_BODY, ...TARGET)
  async retry(
    @Param('id') id: string,
    @Param('delivery_id') deliveryId: string,
  ): Promise<Envelope<DeliveryDataModel>> {
    return ok('Delivery queued', {
      delivery: deliveryView(await this.webhooks.retry(id, deliveryId)),
    });
  }
}
