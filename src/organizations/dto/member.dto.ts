import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { ApplicationUrlField, EmailField, TokenField } from '../../auth/dto/fields';
import { ORG_ROLES, OrgRoleName } from '../org-roles';

const ROLE_MESSAGE = `role must be one of: ${ORG_ROLES.join(', ')}`;

/** `PATCH /organizations/:orgId/members/:userId`. */
export class SetMemberRoleDto {
  @ApiProperty({ enum: ORG_ROLES })
  @IsIn(ORG_ROLES, { message: ROLE_MESSAGE })
  role!: OrgRoleName;
}

/** `POST /organizations/:orgId/invitations`. */
export class CreateInvitationDto {
  @EmailField('email')
  email!: string;

  @ApiProperty({ enum: ORG_ROLES, description: 'Only an owner invites an owner.' })
  @IsIn(ORG_ROLES, { message: ROLE_MESSAGE })
  role!: OrgRoleName;

  @IsOptional()
  @ApplicationUrlField()
  applicationUrl?: string;
}

/** `POST /invitations/accept`. */
export class AcceptInvitationDto {
  @TokenField()
  token!: string;
}

/** `POST /auth/organization`: an organization of the user's, or null to clear. */
export class ChooseOrganizationDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    required: true,
    description: 'An organization the user is a member of, or null for none.',
    example: 'org_184467440737095516',
  })
  @ValidateIf((_object, value) => value !== null)
  @IsString({ message: 'organization_id must be a string or null' })
  @MaxLength(32, { message: 'organization_id must be at most 32 characters long' })
  organization_id!: string | null;
}
