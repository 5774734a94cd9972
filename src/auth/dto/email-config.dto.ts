import { IsOptional, IsString, IsUrl, Matches } from 'class-validator';

/** `emailConfig` at registration (decisions.md): where the verification link leads, and a locale. */
export class EmailConfigDto {
  @IsOptional()
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'applicationUrl must be an http(s) URL' },
  )
  applicationUrl?: string;

  @IsOptional()
  @IsString({ message: 'locale must be a string' })
  @Matches(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, {
    message: 'locale must be a language tag such as en or pt-BR',
  })
  locale?: string;
}
