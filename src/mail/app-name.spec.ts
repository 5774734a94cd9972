import { appNameFrom } from './app-name';

describe('appNameFrom', () => {
  it.each([
    ['https://www.acme-shop.example.com/x', 'Acme Shop'],
    ['https://acme_shop.example.com', 'Acme Shop'],
    ['http://my-cool--app.io:8080/verify?x=1', 'My Cool App'],
    ['https://WWW.Shop.Example.com', 'Shop'],
    ['https://portal.bigcorp.com', 'Portal'],
    // An internationalised host is named as its users read it, not in its punycode form.
    ['https://xn--bcher-kva.example/', 'Bücher'],
    ['https://www.xn--mnchen-3ya.example/reset', 'München'],
    ['https://xn--caf-ber-dya6o.example', 'Café Über'],
    ['https://bücher.example', 'Bücher'],
  ])('%s gives %s', (url, name) => {
    expect(appNameFrom(url, 'Auth Service')).toBe(name);
  });

  it.each([
    [undefined],
    ['http://localhost:5173/verify'],
    ['http://app.localhost:5173'],
    ['http://127.0.0.1:3000'],
    ['http://[::1]:3000'],
    ['not a url'],
  ])('falls back to APP_NAME for %s', (url) => {
    expect(appNameFrom(url, 'Auth Service')).toBe('Auth Service');
  });
});
