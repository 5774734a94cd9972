import { CanActivate, Injectable } from '@nestjs/common';
import { AppException } from '../../common/errors/app.exception';
import { EmailCodeConfig } from '../../config/config.sections';

/**
 * EMAIL_CODE_LOGIN=false: the routes of sign-in by email answer 404 NOT_FOUND, the body an
 * unknown route gets, so a client cannot tell a switched-off feature from an absent one.
 */
@Injectable()
export class EmailCodeSwitch implements CanActivate {
  private readonly enabled: boolean;

  constructor(config: EmailCodeConfig) {
    this.enabled = config.enabled;
  }

  canActivate(): boolean {
    if (!this.enabled) throw new AppException('NOT_FOUND');
    return true;
  }
}
