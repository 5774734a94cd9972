import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ApplicationUrlField } from '../../auth/dto/fields';

/**
 * `emailConfig` at registration (decisions.md): where the verification link leads, and a locale
 * (accepted and kept for the announced localised templates; emails are in English today).
 */
export class EmailConfigDto {
  @IsOptional()
  @ApplicationUrlField()
  applicationUrl?: string;

  @ApiPropertyOptional({ example: 'en', description: 'Kept for localised emails (English today).' })
  @IsOptional()
  @IsString({ message: 'locale must be a string' })
  @Matches(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, {
    message: 'locale must be a language tag such as en or pt-BR',
  })
  locale?: string;
}
