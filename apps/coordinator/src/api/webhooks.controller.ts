import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal } from '../auth/principal';
import { Caller } from '../auth/request-principal';
import { WebhookSecrets } from '../webhooks/webhook-secrets.service';

@ApiTags('webhooks')
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly secrets: WebhookSecrets) {}

  @Get('secret')
  @ApiOperation({ summary: 'The caller’s webhook signing secret (whsec_…): verify webhook-signature with it, as Standard Webhooks libraries do' })
  async secret(@Caller() caller: Principal) {
    return { secret: await this.secrets.forOwner(caller.id), scheme: 'standard-webhooks v1 (HMAC-SHA256 over "webhook-id.webhook-timestamp.body")' };
  }
}
