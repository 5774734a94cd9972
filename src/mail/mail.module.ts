import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { MailService } from './mail.service';

@Module({
  imports: [ConfigSectionsModule],
  providers: [MailService],
  exports: [MailService],
})
export class MailModule {}
