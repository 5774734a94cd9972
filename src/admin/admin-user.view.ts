import { ApiProperty } from '@nestjs/swagger';
import { PublicUser, publicUser } from '../users/user.view';
import { COUNT_LIMIT } from '../users/user-list.queries';
import { User } from '../users/user.entity';

/** A user as administrators see it: the public view, whether it is disabled, when it changed. */
export class AdminUserView extends PublicUser {
  @ApiProperty({ description: 'True while the account cannot log in (see disabled_at).' })
  disabled!: boolean;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  disabled_at!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  verified_at!: string | null;

  @ApiProperty({ description: 'Two-step sign-in (an authenticator app) is on.' })
  two_factor!: boolean;
}

export class AdminUserDataModel {
  @ApiProperty({ type: AdminUserView })
  user!: AdminUserView;
}

const LIMIT = COUNT_LIMIT.toLocaleString('en-US');

/** One page of `GET /admin/users`: newest first, then by id. */
export class AdminUserPageModel {
  @ApiProperty({ type: [AdminUserView] })
  users!: AdminUserView[];

  @ApiProperty({
    description: 'The page answered, from 1; null for a page asked for by `cursor`.',
    example: 1,
    nullable: true,
    type: Number,
  })
  page!: number | null;

  @ApiProperty({ description: 'Users per page (1 to 100).', example: 20 })
  page_size!: number;

  @ApiProperty({
    description:
      `Users matching the search, counted up to ${LIMIT}: exact when \`total_exact\`, ` +
      'otherwise a lower bound (more match).',
    example: 42,
  })
  total!: number;

  @ApiProperty({ description: `False when more than ${LIMIT} users match.`, example: true })
  total_exact!: boolean;

  @ApiProperty({
    description:
      'Give it as `cursor` for the next page (any page costs what the first does); null on the ' +
      'last page.',
    example: 'WzE3NjQyMzA0MDAwMDAsInVzZXJfMTg0NDY3NDQwNzM3MDk1NTE2Il0',
    nullable: true,
    type: String,
  })
  next_cursor!: string | null;
}

export function adminUserView(user: User, twoFactor: boolean): AdminUserView {
  return {
    ...publicUser(user),
    two_factor: twoFactor,
    disabled: user.disabledAt !== null,
    disabled_at: user.disabledAt?.toISOString() ?? null,
    verified_at: user.verifiedAt?.toISOString() ?? null,
    updated_at: user.updatedAt.toISOString(),
  };
}
