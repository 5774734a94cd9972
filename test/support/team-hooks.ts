import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { BlockingHooks } from '../../src/hooks/blocking-hooks';
import {
  BeforeUserCreatedAnswer,
  BeforeUserCreatedData,
  CustomAccessTokenAnswer,
  CustomAccessTokenData,
} from '../../src/hooks/hook-answers';
import { HooksModule } from '../../src/hooks/hooks.module';

/**
 * A team's own blocking hooks, in process (docs/extending.md): no username starting with
 * `blocked`, and every access token says which team issued it and to whom.
 */
@Injectable()
export class TeamHooks implements OnModuleInit {
  constructor(private readonly hooks: BlockingHooks) {}

  onModuleInit(): void {
    this.hooks.register({
      beforeUserCreated: ({ user }: BeforeUserCreatedData): BeforeUserCreatedAnswer =>
        user.username.startsWith('blocked')
          ? { decision: 'reject', message: 'Usernames starting with "blocked" are reserved' }
          : { decision: 'allow' },
      customAccessToken: async ({
        user,
      }: CustomAccessTokenData): Promise<CustomAccessTokenAnswer> =>
        // `sid` is the service's: it stays as it was.
        Promise.resolve({ claims: { team: 'core', handle: user.username, sid: 'replaced' } }),
    });
  }
}

@Module({ imports: [HooksModule], providers: [TeamHooks] })
export class TeamHooksModule {}
