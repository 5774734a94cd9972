'use strict';
// The platform's ceiling: a bare node:http server doing the service's token work from memory.
// verify-token: JWT check (HS256, pinned, KeyObject; issuer, audience and `typ` checked, the
// token shaped as the service's: reference-tokens.js) + revocation version lookup in a Map.
// refresh: JWT check + session lookup, rotation to a new session, both tokens signed, cookies set.
const http = require('node:http');
const { createSecretKey, randomBytes } = require('node:crypto');
const jwt = require('jsonwebtoken');
const {
  accessPayload,
  accessSignOptions,
  accessUser,
  accessVerifyOptions,
  newUser,
  publicUser,
} = require('./reference-tokens');

const accessKey = createSecretKey(randomBytes(48));
const refreshKey = createSecretKey(randomBytes(48));
const users = new Map(); // id → { id, email, username, role, version }
const sessions = new Map(); // jti → { userId, rotated }

function sign(claims, key) {
  return jwt.sign(claims, key, { algorithm: 'HS256' });
}

function issue(user) {
  const now = Math.floor(Date.now() / 1000);
  const jti = randomBytes(32).toString('base64url');
  sessions.set(jti, { userId: user.id, rotated: false });
  return {
    access: jwt.sign(accessPayload(user, jti), accessKey, accessSignOptions),
    refresh: sign({ sub: user.id, typ: 'refresh', jti, iat: now, exp: now + 604800 }, refreshKey),
  };
}

function cookie(req, name) {
  const header = req.headers.cookie || '';
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

function send(res, status, body, cookies) {
  const payload = JSON.stringify(body);
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  };
  if (cookies) {
    headers['set-cookie'] = [
      `access_token=${cookies.access}; Max-Age=900; Path=/; HttpOnly; Secure; SameSite=Lax`,
      `refresh_token=${cookies.refresh}; Max-Age=604800; Path=/api/v1/auth; HttpOnly; Secure; SameSite=Lax`,
    ];
  }
  res.writeHead(status, headers);
  res.end(payload);
}

function verify(token, key, typ) {
  try {
    const claims = jwt.verify(token, key, { algorithms: ['HS256'] });
    return claims.typ === typ ? claims : undefined;
  } catch {
    return undefined;
  }
}

const invalid = {
  success: false,
  message: 'The token is invalid or has expired',
  error: 'INVALID_TOKEN',
};

const server = http.createServer((req, res) => {
  if (req.url === '/api/v1/auth/verify-token') {
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization || '');
    let user;
    try {
      const token = bearer ? bearer[1] : cookie(req, 'access_token') || '';
      user = accessUser(jwt.verify(token, accessKey, accessVerifyOptions), users);
    } catch {
      user = undefined;
    }
    if (!user) return send(res, 401, invalid);
    return send(res, 200, {
      success: true,
      message: 'Token is valid',
      data: { user: publicUser(user) },
    });
  }
  if (req.url === '/api/v1/auth/refresh' && req.method === 'POST') {
    req.resume();
    const claims = verify(cookie(req, 'refresh_token') || '', refreshKey, 'refresh');
    const session = claims && sessions.get(claims.jti);
    const user = session && users.get(session.userId);
    if (!session || session.rotated || !user) return send(res, 401, invalid);
    session.rotated = true;
    return send(
      res,
      200,
      { success: true, message: 'Token refreshed', data: { user: publicUser(user) } },
      issue(user),
    );
  }
  if (req.url === '/bench/session' && req.method === 'POST') {
    req.resume();
    const tokens = issue(newUser(users));
    return send(res, 200, { access_token: tokens.access, refresh_token: tokens.refresh });
  }
  send(res, 404, { success: false, message: 'Route not found', error: 'NOT_FOUND' });
});

server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () =>
  process.send?.({ port: server.address().port }),
);
