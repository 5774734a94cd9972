import { join } from 'node:path';
import { Whereabouts, startBanner } from './start-banner';

describe('startBanner', () => {
  const defaults: Whereabouts = {
    appName: 'Auth Service',
    apiUrl: 'http://localhost:3000/api/v1',
    platform: 'express',
    corsOrigins: ['http://localhost:5173'],
    outboxDir: join(process.cwd(), 'data', 'mail'),
    smtpUrl: undefined,
  };

  it('says where the service, the example app and the outbox are, as npm start sets them up', () => {
    expect(startBanner(defaults)).toBe(
      'Auth Service on http://localhost:3000/api/v1 (express) · ' +
        'example app: npm run example:spa, then http://localhost:5173 · ' +
        'mail: written to ./data/mail (the newest: npm run -s mail:last)',
    );
  });

  it('tells the example app where the API is when it moved, and what CORS must allow', () => {
    const banner = startBanner({
      ...defaults,
      apiUrl: 'http://localhost:4000/api/v1',
      corsOrigins: ['https://app.example.com'],
      outboxDir: '/var/mail/auth',
    });
    expect(banner).toContain(
      'example app: API_URL=http://localhost:4000/api/v1 npm run example:spa, then ' +
        'http://localhost:5173 (add it to CORS_ORIGINS) · mail: written to /var/mail/auth',
    );
    expect(banner).not.toContain('mail:last');
  });

  it('names the SMTP server by its address only: no user, password or options', () => {
    const banner = startBanner({
      ...defaults,
      smtpUrl: 'smtps://mailer:p4ss%40word@smtp.example.com:465?pool=true',
    });
    expect(banner).toMatch(/ · mail: sent through smtps:\/\/smtp\.example\.com:465$/);
    expect(banner).not.toMatch(/mailer|p4ss|pool/);
  });
});
