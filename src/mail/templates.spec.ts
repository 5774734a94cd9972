import { MailerService } from '@nestjs-modules/mailer';
import { ParsedMail, simpleParser } from 'mailparser';
import { mkdtempSync, rmSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { VIEWS_DIR } from '../common/views/pug-views';
import { MailConfig } from '../config/config.sections';
import { CodeContext, EmailContext, NoticeContext } from './mail.service';
import { mailerOptions } from './mailer-options';

const hostile: EmailContext = {
  appName: 'Shop <img src=x onerror=alert(1)>',
  username: '<script>alert("x")</script> {{link}}',
  email: 'a&b@example.com',
  link: 'https://app.example.com/verify?token=abc&x="><script>',
  validFor: '24 hours',
};

/** The service's own mailer options, with messages kept in memory instead of sent. */
function testMailer(): MailerService {
  const options = mailerOptions({
    from: 'accounts@example.com',
    outboxDir: tmpdir(),
  } as MailConfig);
  return new MailerService(options, {
    createTransport: () => createTransport({ streamTransport: true, buffer: true }),
  });
}

async function send(
  mailer: MailerService,
  template: string,
  context: object = hostile,
  textTemplate = template,
): Promise<ParsedMail> {
  const info = (await mailer.sendMail({
    to: { name: '', address: 'someone@example.com' },
    subject: 'About {{appName}}',
    template,
    textTemplate,
    context,
  })) as { message: Buffer };
  return simpleParser(info.message);
}

describe.each(['verification', 'password-reset', 'email-change', 'email-code'])(
  'the %s email',
  (name) => {
    let mail: ParsedMail;
    let html: string;
    beforeAll(async () => {
      mail = await send(testMailer(), name, { ...hostile, code: '<b>1</b>' });
      html = typeof mail.html === 'string' ? mail.html : '';
    });

    it('escapes everything a user or a URL could put in the HTML part', () => {
      expect(html).not.toContain('<script>');
      expect(html).not.toContain('<img');
      expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
      expect(html).toContain('a&amp;b@example.com');
      expect(html).toContain(
        'href="https://app.example.com/verify?token=abc&amp;x=&quot;&gt;&lt;script&gt;"',
      );
    });

    it('renders the HTML part inside the layout with the app name', () => {
      expect(html).toMatch(/^<!DOCTYPE html>/);
      // The footer spells the link out for mail clients that break the button.
      expect(html).toContain('If the button does not work, copy this link into your browser:');
      expect(html).toContain('Shop &lt;img src=x onerror=alert(1)&gt;');
    });

    it('renders the text part from its template, each value as given and filled in once', () => {
      expect(mail.text).toContain('Hello <script>alert("x")</script> {{link}},');
      expect(mail.text).toContain('\nhttps://app.example.com/verify?token=abc&x="><script>\n');
      expect(mail.text).toContain('valid for 24 hours');
      expect(mail.subject).toBe('About Shop <img src=x onerror=alert(1)>');
    });
  },
);

const hostileNotice: NoticeContext = {
  appName: 'Shop <img src=x onerror=alert(1)>',
  username: '<script>alert("x")</script> {{newEmail}}',
  email: 'a&b@example.com',
  when: '2026-11-25 05:50 UTC',
  ip: '203.0.113.7',
  newEmail: '"><script>@example.com',
  providerName: '<script>alert("p")</script>',
  link: '',
  validFor: '',
};

const NOTICES = [
  'password-changed',
  'email-change-requested',
  'registration-attempt',
  'identity-linked',
];

describe.each(NOTICES)('the %s notice', (name) => {
  let mail: ParsedMail;
  let html: string;
  beforeAll(async () => {
    mail = await send(testMailer(), name, hostileNotice);
    html = typeof mail.html === 'string' ? mail.html : '';
  });

  it('escapes what a user could put in it, and carries no link at all', () => {
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/<a\s|href=/);
    expect(html).not.toContain('copy this link');
    expect(mail.text).not.toMatch(/https?:/);
  });

  it('says when and from where, in both parts', () => {
    for (const part of [html, mail.text ?? '']) {
      expect(part).toContain('2026-11-25 05:50 UTC');
      expect(part).toContain('203.0.113.7');
    }
    expect(html).toContain('a&amp;b@example.com');
    expect(mail.text).toContain('a&b@example.com');
    expect(mail.text).toContain('Hello <script>alert("x")</script> {{newEmail}},');
  });
});

describe('the email-changed notice', () => {
  const link = 'https://auth.example.com/api/v1/users/me/email/undo?token=abc&x="><script>';

  it('escapes what a user could put in it, and carries the undo link and its life', async () => {
    const mail = await send(testMailer(), 'email-changed', {
      ...hostileNotice,
      link,
      validFor: '1 hour',
    });
    const html = typeof mail.html === 'string' ? mail.html : '';
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain(
      'href="https://auth.example.com/api/v1/users/me/email/undo?token=abc&amp;x=&quot;&gt;&lt;script&gt;"',
    );
    expect(mail.text).toContain(`Undo the change: ${link}\n`);
    expect(mail.text).toContain('valid for 1 hour and works once');
    expect(mail.text).toContain('2026-11-25 05:50 UTC');
  });
});

describe('the sign-in code email', () => {
  const context: CodeContext = { ...hostile, code: '049213', validFor: '10 minutes' };

  it('shows the code, escaped, in both parts, and the link to use instead', async () => {
    const mail = await send(testMailer(), 'email-code', context);
    const html = typeof mail.html === 'string' ? mail.html : '';
    expect(html).toContain('>049213</p>');
    expect(mail.text).toContain('\n049213\n');
    expect(mail.text).toContain('valid for 10 minutes, and either works once');
    const hostileCode = await send(testMailer(), 'email-code', { ...context, code: '<b>1</b>' });
    expect(hostileCode.html).toContain('&lt;b&gt;1&lt;/b&gt;');
  });
});

describe('the step-up code email', () => {
  const context: CodeContext = { ...hostile, link: '', code: '049213', validFor: '10 minutes' };

  it('shows the code, escaped, in both parts, and carries no link at all', async () => {
    const mail = await send(testMailer(), 'reauthentication-code', context);
    const html = typeof mail.html === 'string' ? mail.html : '';
    expect(html).toContain('>049213</p>');
    expect(mail.text).toContain('\n049213\n');
    expect(mail.text).toContain('valid for 10 minutes and works once');
    expect(html).not.toMatch(/<a\s|href=/);
    expect(html).not.toContain('copy this link');
    expect(mail.text).not.toMatch(/https?:/);
    expect(html).not.toContain('<script>');
    const hostileCode = await send(testMailer(), 'reauthentication-code', {
      ...context,
      code: '<b>1</b>',
    });
    expect(hostileCode.html).toContain('&lt;b&gt;1&lt;/b&gt;');
  });
});

describe('the mailer', () => {
  const mailer = testMailer();

  it('applies its Pug options over the context', async () => {
    // With `self: true` the template would find no `username` and render it empty.
    const mail = await send(mailer, 'verification', { ...hostile, self: true, compileDebug: true });
    expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  });

  it('fails a mail whose template is missing or does not compile', async () => {
    await expect(send(mailer, 'no-such-email', hostile, 'verification')).rejects.toThrow(
      /no such file/i,
    );
    const dir = mkdtempSync(join(tmpdir(), 'email-'));
    try {
      const broken = join(dir, 'broken.pug');
      writeFileSync(broken, 'p= (\n');
      await expect(send(mailer, broken, hostile, 'verification')).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails a mail without its text part', async () => {
    await expect(send(mailer, 'verification', hostile, 'no-such-text')).rejects.toThrow(
      /no text part/,
    );
  });
});

it('no template uses unescaped interpolation', () => {
  for (const dir of ['emails', 'layouts', 'pages']) {
    for (const file of readdirSync(join(VIEWS_DIR, dir)).filter((f) => f.endsWith('.pug'))) {
      const source = readFileSync(join(VIEWS_DIR, dir, file), 'utf8');
      expect({ file, unescaped: /!\{|!=/.test(source) }).toEqual({ file, unescaped: false });
    }
  }
});

it('every email has an HTML and a text template', () => {
  const files = readdirSync(join(VIEWS_DIR, 'emails'));
  const names = (ext: string) =>
    files.filter((file) => file.endsWith(ext)).map((file) => file.slice(0, -ext.length));
  expect(names('.txt').sort()).toEqual(names('.pug').sort());
});

/** What a person reads of an HTML part: its text, entities decoded, white space collapsed. */
function readableText(html: string): string {
  return html
    .replace(/<head>[\s\S]*<\/head>/, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

describe.each(
  readdirSync(join(VIEWS_DIR, 'emails'))
    .filter((file) => file.endsWith('.txt'))
    .map((file) => file.slice(0, -'.txt'.length)),
)('the %s email, in either part', (name) => {
  const context = {
    appName: 'Shop',
    username: 'ann',
    email: 'ann@example.com',
    link: 'https://app.example.com/page?token=abc',
    validFor: '24 hours',
    when: '2026-11-25 05:50 UTC',
    ip: '203.0.113.7',
    newEmail: 'ann@example.org',
    providerName: 'Corp ID',
    code: '049213',
    organizationName: 'Acme',
    inviter: 'bob',
  };

  it('says in the HTML part everything the text part says', async () => {
    const mail = await send(testMailer(), name, context);
    const html = readableText(typeof mail.html === 'string' ? mail.html : '');
    // Each line of the text part, the link aside (the HTML has it as a button and a footer).
    const lines = (mail.text ?? '')
      .split('\n')
      .map((line) => line.replace(context.link, '').trim().replace(/:$/, ''))
      .filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => !html.includes(line))).toEqual([]);
    if ((mail.text ?? '').includes(context.link)) expect(html).toContain(context.link);
  });
});
