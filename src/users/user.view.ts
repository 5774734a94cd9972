import { User } from './user.entity';

/** A user as clients see it: never a hash, a token version or a normalized key. */
export interface PublicUser {
  id: string;
  email: string;
  username: string;
  role: string;
  email_verified: boolean;
  created_at: string;
}

export function publicUser(user: User): PublicUser {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    role: user.role,
    email_verified: user.emailVerified,
    created_at: user.createdAt.toISOString(),
  };
}

/** The signed-in user's own profile (`GET /users/me`): the public view and its dates. */
export interface ProfileView extends PublicUser {
  verified_at: string | null;
  updated_at: string;
}

export function profileView(user: User): ProfileView {
  return {
    ...publicUser(user),
    verified_at: user.verifiedAt?.toISOString() ?? null,
    updated_at: user.updatedAt.toISOString(),
  };
}

/** The contract's body-token login shape names the username `name` and has a `picture`. */
export function tokenResponseUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    name: user.username,
    email_verified: user.emailVerified,
    picture: null,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}
