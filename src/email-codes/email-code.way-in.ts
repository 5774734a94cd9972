import { Injectable, OnModuleInit } from '@nestjs/common';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { EmailCodeConfig } from '../config/config.sections';

export const EMAIL_CODE = 'email_code';

/**
 * A code mailed to the account (or its link): unless EMAIL_CODE_LOGIN=false. RFC 8176 has no
 * name for proving a mailbox; `otp` is the closest, as OpenID providers use it for mailed codes.
 * Any address can be mailed, so it is not a way in an account could lose.
 */
@Injectable()
export class EmailCodeWayIn implements OnModuleInit {
  constructor(
    private readonly registry: SignInMethodRegistry,
    private readonly config: EmailCodeConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      id: EMAIL_CODE,
      order: 30,
      amr: ['otp'],
      listed: true,
      enabled: () => this.config.enabled,
    });
  }
}
