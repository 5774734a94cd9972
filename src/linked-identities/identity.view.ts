import { ApiProperty } from '@nestjs/swagger';
import { EMAIL_ADDRESS } from '../openapi/email-address.property';
import { UserIdentity } from './user-identity.entity';

/* How linked identities appear in answers (the account page, the admin's view of a user). */

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
