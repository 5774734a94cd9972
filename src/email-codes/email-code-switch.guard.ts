import { Injectable } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { EmailCodeConfig } from '../config/config.sections';
import { FeatureSwitch } from '../common/feature-switch/switched-by.decorator';

/**
 * EMAIL_CODE_LOGIN=false: the routes of sign-in by email answer 404 NOT_FOUND, the body an
 * unknown route gets, so a client cannot tell a switched-off feature from an absent one (and,
 * through `SwitchedBy`, the rate limit counts them as it counts an unknown route).
 */
@Injectable()
export class EmailCodeSwitch implements FeatureSwitch {
  readonly enabled: boolean;

  constructor(config: EmailCodeConfig) {
    this.enabled = config.enabled;
  }

  canActivate(): boolean {
    if (!this.enabled) throw new AppException('NOT_FOUND');
    return true;
  }
}
