import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { MailModule } from './mail.module';
import { NoticeMails } from './notice-mails.service';

/** The notice mails' subscriber to the domain events. */
@Module({
  imports: [EventsModule, MailModule],
  providers: [NoticeMails],
})
export class NoticesModule {}
