import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, ValidateIf } from 'class-validator';

export const LOGOUT_SCOPES = ['current', 'others', 'all'] as const;
export type LogoutScope = (typeof LOGOUT_SCOPES)[number];

/** Logout's optional body: no body (or no scope) is `all`, the contract's logout. */
export class LogoutDto {
  @ApiPropertyOptional({
    enum: LOGOUT_SCOPES,
    default: 'all',
    description:
      '`current`: this session only (cookies cleared). `others`: every session but this one ' +
      '(cookies kept). `all`: every session on every device (cookies cleared).',
  })
  // Not @IsOptional: that would let `null` through as "all".
  @ValidateIf((dto: LogoutDto) => dto.scope !== undefined)
  @IsIn(LOGOUT_SCOPES, { message: `scope must be one of: ${LOGOUT_SCOPES.join(', ')}` })
  scope?: LogoutScope;
}
