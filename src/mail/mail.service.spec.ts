import { MailerService } from '@nestjs-modules/mailer';
import { simpleParser } from 'mailparser';
import { tmpdir } from 'node:os';
import { createTransport } from 'nodemailer';
import { AppConfig, MailConfig } from '../config/config.sections';
import { Metrics } from '../metrics/metrics.service';
import { MailDeliveryError, MailService } from './mail.service';
import { mailerOptions } from './mailer-options';

describe('MailService', () => {
  const options = mailerOptions({
    from: 'accounts@example.com',
    outboxDir: tmpdir(),
  } as MailConfig);
  // Messages are kept in memory instead of sent.
  const mailer = new MailerService(options, {
    createTransport: () => createTransport({ streamTransport: true, buffer: true }),
  });
  const metrics = { email: jest.fn() };
  const service = new MailService(
    mailer,
    { publicUrl: 'https://auth.example.com', appName: 'Auth Service' } as AppConfig,
    metrics as unknown as Metrics,
  );
  const sendMail = jest.spyOn(mailer, 'sendMail');
  const message = {
    to: 'ann@example.com',
    username: 'ann',
    token: 'tok-en_1',
    ttl: 3600,
  };

  afterEach(() => jest.clearAllMocks());

  async function lastMail() {
    const info = (await sendMail.mock.results.at(-1)!.value) as { message: Buffer };
    return simpleParser(info.message);
  }

  it('hands the mailer a template name and a context, and sends one recipient', async () => {
    await service.sendPasswordResetEmail({
      ...message,
      applicationUrl: 'https://www.acme-shop.example.com/reset?step=1',
    });
    expect(sendMail).toHaveBeenCalledWith(
      expect.objectContaining({
        to: { name: '', address: 'ann@example.com' },
        template: 'password-reset',
        textTemplate: 'password-reset',
        context: {
          appName: 'Acme Shop',
          username: 'ann',
          email: 'ann@example.com',
          link: 'https://www.acme-shop.example.com/reset?step=1&token=tok-en_1',
          validFor: '1 hour',
        },
      }),
    );
    const mail = await lastMail();
    expect(mail.subject).toBe('Reset your Acme Shop password');
    expect(mail.html).toContain(
      'href="https://www.acme-shop.example.com/reset?step=1&amp;token=tok-en_1"',
    );
    expect(mail.text).toContain(
      '\nhttps://www.acme-shop.example.com/reset?step=1&token=tok-en_1\n',
    );
    expect(metrics.email).toHaveBeenCalledWith('password_reset', 'sent');
  });

  // Rounded down and never past the true lifetime: a reader who trusts it is never turned away.
  it.each([
    [30, '30 seconds'],
    [60, '1 minute'],
    [119, '1 minute'],
    [600, '10 minutes'],
    [1800, '30 minutes'],
    [3599, '59 minutes'],
    [3600, '1 hour'],
    [3660, '1 hour and 1 minute'],
    [5400, '1 hour and 30 minutes'],
    [86400, '24 hours'],
  ])('says a lifetime of %i seconds as "%s"', async (ttl, validFor) => {
    await service.sendEmailCode({ ...message, ttl, code: '123456' });
    expect(sendMail).toHaveBeenCalledWith(
      expect.objectContaining({ context: expect.objectContaining({ validFor }) }),
    );
  });

  it("links to the service's own page without an applicationUrl", async () => {
    await service.sendVerificationEmail({ ...message, ttl: 86400 });
    const mail = await lastMail();
    expect(mail.subject).toBe('Verify your email for Auth Service');
    expect(mail.text).toContain('https://auth.example.com/api/v1/auth/verify-email?token=tok-en_1');
    expect(mail.text).toContain('valid for 24 hours');
  });

  it('turns any failure into a MailDeliveryError that names only codes', async () => {
    sendMail.mockRejectedValueOnce(
      Object.assign(new Error('550 no such user ann@example.com'), {
        code: 'EENVELOPE',
        responseCode: 550,
      }),
    );
    const failure = service.sendVerificationEmail(message);
    await expect(failure).rejects.toBeInstanceOf(MailDeliveryError);
    await expect(failure).rejects.toMatchObject({ reason: 'EENVELOPE 550' });
    expect(metrics.email).toHaveBeenCalledWith('verification', 'failed');
  });
});
