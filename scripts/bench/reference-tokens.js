'use strict';
// What both reference servers (ceiling-server.js, nest-minimal.js) sign and check, so the bearer
// token they are measured with has the shape of the service's own access token (issue 13 item 3):
// header `typ: at+jwt`, claims iss, aud, sub, iat, exp, a unique jti, sid, and the service's
// `typ: 'access'` and revocation version `ver`. HS256 with the algorithm pinned; issuer and
// audience checked on the way in, as the service does.
const { randomBytes } = require('node:crypto');

const ISSUER = 'http://127.0.0.1';
const AUDIENCE = 'auth-bench';

/** jsonwebtoken's sign options for an access token. */
const accessSignOptions = {
  algorithm: 'HS256',
  header: { alg: 'HS256', typ: 'at+jwt' },
  issuer: ISSUER,
  audience: AUDIENCE,
  expiresIn: 900,
};

/** jsonwebtoken's verify options: `complete` to see the header's `typ`. */
const accessVerifyOptions = {
  algorithms: ['HS256'],
  issuer: ISSUER,
  audience: AUDIENCE,
  complete: true,
};

/** The payload of an access token for `user` (iss, aud, iat and exp come from the options). */
function accessPayload(user, sid) {
  return {
    sub: user.id,
    sid,
    jti: randomBytes(16).toString('base64url'),
    typ: 'access',
    ver: user.version,
  };
}

/** The user a verified access token names, or undefined. `decoded` is verify's complete result. */
function accessUser(decoded, users) {
  const { header, payload } = decoded;
  if (header.typ !== 'at+jwt' || payload.typ !== 'access') return undefined;
  const user = users.get(payload.sub);
  return user && user.version === payload.ver ? user : undefined;
}

function newUser(users) {
  const id = `user_${users.size + 1}`;
  const user = {
    id,
    email: `${id}@example.com`,
    username: id,
    role: 'user',
    emailVerified: true,
    createdAt: new Date(),
    version: 0,
  };
  users.set(id, user);
  return user;
}

/** The service's public view of a user (src/users/user.view.ts `publicUser`). */
function publicUser(user) {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    role: user.role,
    email_verified: user.emailVerified,
    created_at: user.createdAt.toISOString(),
  };
}

module.exports = {
  accessSignOptions,
  accessVerifyOptions,
  accessPayload,
  accessUser,
  newUser,
  publicUser,
};
