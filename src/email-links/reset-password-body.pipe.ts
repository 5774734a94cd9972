import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { AppValidationPipe } from '../common/validation/app-validation.pipe';
import { SecurityConfig } from '../config/config.sections';
import { ResetConfirmDto, ResetRequestDto } from './dto/email-link.dto';

const SHAPES = [
  { keys: ['email'], dto: ResetRequestDto },
  { keys: ['newPassword', 'token'], dto: ResetConfirmDto },
];

/**
 * `POST /auth/reset-password` has two contracts on one path, chosen by the body's shape:
 * `{ email }` (variant A) or `{ token, newPassword }` (variant B). Any other shape is refused.
 */
@Injectable()
export class ResetPasswordBodyPipe implements PipeTransform {
  private readonly validation: AppValidationPipe;

  constructor(security: SecurityConfig) {
    this.validation = new AppValidationPipe(security.passwordMinLength);
  }

  transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const keys =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.keys(value).sort()
        : [];
    const shape = SHAPES.find((candidate) => candidate.keys.join() === keys.join());
    if (!shape) {
      // Let the validator explain a malformed body (bad JSON, not an object) in its own words.
      if (keys.length === 0)
        return this.validation.transform(value, { ...metadata, metatype: ResetConfirmDto });
      throw new AppException('VALIDATION_ERROR', {
        message:
          'Send either { email } to receive a reset link or { token, newPassword } to set a new password',
      });
    }
    return this.validation.transform(value, { ...metadata, metatype: shape.dto });
  }
}
