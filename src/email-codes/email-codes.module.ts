import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { EmailCode } from './email-code.entity';
import { EmailCodes } from './email-codes.service';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { EmailCodeWayIn } from './email-code.way-in';

/**
 * The mailed sign-in codes and the only module that touches their table. No routes of its own:
 * signing in with one is AuthModule's (EmailCodeSignInController), under its rate limits.
 */
@Module({
  imports: [
    ConfigSectionsModule,
    DatabaseModule,
    SignInMethodsModule,
    TypeOrmModule.forFeature([EmailCode]),
  ],
  providers: [EmailCodes, EmailCodeWayIn],
  exports: [EmailCodes],
})
export class EmailCodesModule {}
