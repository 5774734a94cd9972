import { ApiProperty } from '@nestjs/swagger';
import { UserIdentity } from '../identities/user-identity.entity';
import { EMAIL_ADDRESS } from '../openapi/email-address.property';

/* How providers and linked identities appear in answers (and the OpenAPI document). */

export class ProviderModel {
  @ApiProperty({ example: 'google', description: 'Used in the provider routes.' })
  id!: string;

  @ApiProperty({ example: 'Google', description: 'What a sign-in button says.' })
  name!: string;
}

export class ProvidersDataModel {
  @ApiProperty({ type: [ProviderModel], description: 'In AUTH_PROVIDERS order.' })
  providers!: ProviderModel[];
}

export class SsoStartDataModel {
  @ApiProperty({ example: 'acme', description: 'The provider that signs this domain in.' })
  provider!: string;

  @ApiProperty({
    format: 'uri',
    description:
      "Where to send the browser (a top-level navigation): the provider's start route, which " +
      'binds the flow to the browser and goes on to the provider.',
  })
  url!: string;
}

export class IdentityModel {
  @ApiProperty({ example: 'github', description: 'The provider id.' })
  provider!: string;

  @ApiProperty({ ...EMAIL_ADDRESS, nullable: true, type: String })
  email!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class IdentitiesDataModel {
  @ApiProperty({ type: [IdentityModel], description: 'Oldest first.' })
  identities!: IdentityModel[];
}

export function identityView(identity: UserIdentity): IdentityModel {
  return {
    provider: identity.provider,
    email: identity.email,
    created_at: identity.createdAt.toISOString(),
  };
}
