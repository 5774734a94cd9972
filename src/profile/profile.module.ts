import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ProfileController } from './profile.controller';

/** Routes for the signed-in user: `@Authenticated()` needs what AuthModule exports. */
@Module({
  imports: [AuthModule],
  controllers: [ProfileController],
})
export class ProfileModule {}
