import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { ConfigSectionsModule } from '../config/config.module';
import { SignInPoliciesModule } from '../auth/sign-in-policies.module';
import { DatabaseModule } from '../database/database.module';
import { EventsModule } from '../events/events.module';
import { MailModule } from '../mail/mail.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { ActiveOrganizationController } from './active-organization.controller';
import { ActiveOrganizations } from './active-organizations.service';
import { AdminOrganizationsController } from './admin-organizations.controller';
import { AdminOrganizations } from './admin-organizations.service';
import { InvitationMails } from './invitation-mails.service';
import { InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';
import { MembersController } from './members.controller';
import { Memberships } from './memberships.service';
import { OrgRoleGuard } from './org-role.guard';
import { OrganizationInvitation } from './organization-invitation.entity';
import { OrganizationMember } from './organization-member.entity';
import { Organization } from './organization.entity';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsService } from './organizations.service';
import { ProviderMemberships } from './provider-memberships.service';
import { SessionOrganization } from './session-organization.entity';

/**
 * Organizations, their members, invitations and each session's active organization (issue 36).
 * A team's module guarding its own routes with `@OrgRole()` imports this one: it exports the
 * guard and the memberships it reads. AccountRemovalModule imports it to end a deleted user's
 * memberships. A provider of AUTH_PROVIDERS that names an organization brings its people into it
 * (ProviderMemberships).
 */
@Module({
  imports: [
    AuthModule,
    ConfigSectionsModule,
    SignInPoliciesModule,
    DatabaseModule,
    EventsModule,
    MailModule,
    SessionsModule,
    TokensModule,
    UsersModule,
    TypeOrmModule.forFeature([
      Organization,
      OrganizationMember,
      OrganizationInvitation,
      SessionOrganization,
    ]),
  ],
  controllers: [
    OrganizationsController,
    MembersController,
    InvitationsController,
    ActiveOrganizationController,
    AdminOrganizationsController,
  ],
  providers: [
    OrganizationsService,
    Memberships,
    OrgRoleGuard,
    InvitationsService,
    InvitationMails,
    ActiveOrganizations,
    AdminOrganizations,
    ProviderMemberships,
  ],
  exports: [Memberships, OrgRoleGuard, OrganizationsService],
})
export class OrganizationsModule {}
