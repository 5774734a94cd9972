import { smtpOptions } from './smtp-options';

describe('smtpOptions', () => {
  it('requires STARTTLS for plain smtp:// to another host, with credentials decoded', () => {
    expect(smtpOptions('smtp://us%40er:p%3Ass@mail.example.com', 5000)).toMatchObject({
      host: 'mail.example.com',
      port: 587,
      secure: false,
      requireTLS: true,
      auth: { user: 'us@er', pass: 'p:ss' },
      connectionTimeout: 5000,
      greetingTimeout: 5000,
      socketTimeout: 10000,
    });
  });

  it('uses TLS on connect for smtps:// and lets a loopback relay go without', () => {
    expect(smtpOptions('smtps://mail.example.com', 1000)).toMatchObject({
      port: 465,
      secure: true,
      requireTLS: false,
    });
    expect(smtpOptions('smtp://127.0.0.1:2525', 1000)).toMatchObject({
      host: '127.0.0.1',
      port: 2525,
      requireTLS: false,
      auth: undefined,
    });
    expect(smtpOptions('smtp://[::1]:25', 1000)).toMatchObject({ host: '::1', requireTLS: false });
  });
});
