import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { ProfileController } from './profile.controller';

/** Routes for the signed-in user. The access-token guard needs the app's origins (AppConfig). */
@Module({
  imports: [ConfigSectionsModule],
  controllers: [ProfileController],
})
export class ProfileModule {}
