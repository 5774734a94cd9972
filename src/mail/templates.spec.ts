import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { renderFile } from 'pug';
import { VIEWS_DIR } from '../common/views/pug-views';

const hostile = {
  appName: 'Shop <img src=x onerror=alert(1)>',
  username: '<script>alert("x")</script>',
  email: 'a&b@example.com',
  link: 'https://app.example.com/verify?token=abc&x="><script>',
  validFor: '24 hours',
};

describe.each(['verification', 'password-reset'])('the %s email template', (name) => {
  const html = renderFile(join(VIEWS_DIR, 'emails', `${name}.pug`), { mail: hostile });

  it('escapes everything a user or a URL could put in it', () => {
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('a&amp;b@example.com');
    expect(html).toContain(
      'href="https://app.example.com/verify?token=abc&amp;x=&quot;&gt;&lt;script&gt;"',
    );
  });

  it('renders inside the layout with the app name', () => {
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('Shop &lt;img src=x onerror=alert(1)&gt;');
  });
});

it('no email template uses unescaped interpolation', () => {
  for (const dir of ['emails', 'layouts', 'pages']) {
    for (const file of readdirSync(join(VIEWS_DIR, dir))) {
      const source = readFileSync(join(VIEWS_DIR, dir, file), 'utf8');
      expect({ file, unescaped: /!\{|!=/.test(source) }).toEqual({ file, unescaped: false });
    }
  }
});
