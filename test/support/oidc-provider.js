// A real OpenID provider (oidc-provider) for the suites, run as a process of its own: the
// package is an ES module, which Node loads with `require` and Jest does not. Its development
// login and consent pages are the ones a person (or the browser suite) goes through.
//
// The login name says who signs in, as `subject:email:verified` (`u1:ann@example.com:1`), so a
// suite makes up any account without configuring it first.
const mod = require('oidc-provider');
const Provider = mod.default ?? mod;

const port = Number(process.env.OIDC_PORT);
const issuer = `http://127.0.0.1:${port}`;
const clients = JSON.parse(process.env.OIDC_CLIENTS);

const provider = new Provider(issuer, {
  clients: clients.map((client) => ({
    client_id: client.client_id,
    client_secret: client.client_secret,
    redirect_uris: client.redirect_uris,
    token_endpoint_auth_method: 'client_secret_post',
    grant_types: ['authorization_code'],
    response_types: ['code'],
  })),
  pkce: { required: () => true },
  cookies: { keys: ['oidc-provider-test-cookie-key'] },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['preferred_username'],
  },
  findAccount(_ctx, id) {
    const [subject, email, verified] = String(id).split(':');
    return {
      accountId: id,
      claims: () => ({
        sub: subject,
        ...(email ? { email, email_verified: verified === '1' } : {}),
        preferred_username: email ? email.split('@')[0] : subject,
      }),
    };
  },
});
// A suite whose service port is chosen after the provider starts (the browser suite) lets any
// loopback callback through.
if (process.env.OIDC_ANY_LOOPBACK_REDIRECT === '1') {
  const allowed = provider.Client.prototype.redirectUriAllowed;
  provider.Client.prototype.redirectUriAllowed = function redirectUriAllowed(value) {
    return /^http:\/\/(localhost|127\.0\.0\.1):\d+\//.test(value) || allowed.call(this, value);
  };
}
// A provider whose published keys are not the ones it signs with: an ID token from it is a forged
// one to a relying party that checks signatures.
if (process.env.OIDC_FOREIGN_JWKS === '1') {
  const { generateKeyPairSync } = require('node:crypto');
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = { ...publicKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256' };
  provider.use(async (ctx, next) => {
    if (ctx.path !== '/jwks') return next();
    ctx.type = 'application/jwk-set+json';
    ctx.body = { keys: [key] };
  });
}
// Only loopback: the suites' own provider.
provider.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${issuer}\n`));
