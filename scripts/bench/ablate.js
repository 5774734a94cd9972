'use strict';
// Bench-only (`node -r scripts/bench/ablate.js dist/main.js`, ABLATE=<part>): switches one part
// of the built service off before it starts, to measure what that part costs on the token path.
// Never loaded by the service itself; `npm run bench:ablation` is its only user. Each patch keeps
// the answer the same (the same user, the same envelope) and removes only the part's own work.
const Module = require('node:module');
const { join } = require('node:path');

const DIST = join(__dirname, '..', '..', 'dist');
const fromDist = (file) => require(join(DIST, file));

/** Puts `exports` in the module cache under `name`, as the service would resolve it. */
function replaceModule(name, exports) {
  const id = require.resolve(name, { paths: [DIST] });
  const stub = new Module(id);
  stub.filename = id;
  stub.loaded = true;
  stub.exports = exports;
  require.cache[id] = stub;
}

const PATCHES = {
  // The request log: no observer writes a line per answer (Nest's own lines stay).
  logging() {
    fromDist('logging/request-log.js').requestLog = () => () => undefined;
  },
  // The rate limits: the global guard lets every request through without counting it.
  throttler() {
    fromDist('common/throttling/app-throttler.guard.js').AppThrottlerGuard.prototype.canActivate =
      () => Promise.resolve(true);
  },
  // Passport's machinery (@nestjs/passport's guard, passport.authenticate, the strategy's
  // callbacks): the access guard calls passport-jwt's own steps directly, with the same options,
  // key lookup and validation, and refuses as the guard does.
  passport() {
    const passport = require(require.resolve('passport', { paths: [DIST] }));
    const jwt = require(require.resolve('jsonwebtoken', { paths: [DIST] }));
    const { AppException } = fromDist('common/errors/app.exception.js');
    const guard = fromDist('auth/guards/token.guard.js').AccessTokenGuard;
    guard.prototype.canActivate = function (context) {
      const req = context.switchToHttp().getRequest();
      const strategy = passport._strategy('access-token');
      const refuse = () => new AppException('INVALID_TOKEN');
      return new Promise((resolve, reject) => {
        const token = strategy._jwtFromRequest(req);
        if (!token) return reject(refuse());
        strategy._secretOrKeyProvider(req, token, (keyError, key) => {
          if (keyError) return reject(refuse());
          jwt.verify(token, key, strategy._verifOpts, (error, payload) => {
            if (error) return reject(refuse());
            strategy._verify(req, payload, (failure, user) => {
              if (failure || !user) return reject(refuse());
              req.user = user;
              resolve(true);
            });
          });
        });
      });
    };
  },
  // Cookie parsing (Express): every request gets no cookies, as one without a Cookie header.
  cookies() {
    replaceModule('cookie-parser', () => (req, _res, next) => {
      req.cookies = {};
      next();
    });
  },
  // CORS (Express): a request with an Origin gets no CORS headers and no origin check.
  cors() {
    replaceModule('cors', () => (_req, _res, next) => next());
  },
  // The revocation check: the token's claims are trusted as they are (no user read, no token
  // version, no live-session check, no cache, no Redis generation).
  revocation() {
    const { AccessTokenStrategy } = fromDist('auth/strategies/access-token.strategy.js');
    const created = new Date();
    AccessTokenStrategy.prototype.validate = function (req, payload) {
      req.sessionId = payload.sid;
      return Promise.resolve({
        id: payload.sub,
        email: 'bench@example.com',
        username: 'bench',
        name: null,
        picture: null,
        role: payload.role,
        emailVerified: false,
        verifiedAt: null,
        tokenVersion: payload.ver,
        disabledAt: null,
        createdAt: created,
        updatedAt: created,
      });
    };
  },
};

const part = process.env.ABLATE;
// NODE_OPTIONS reaches the hashing workers too: they load none of this.
if (part && require('node:worker_threads').isMainThread) {
  const patch = PATCHES[part];
  if (!patch) throw new Error(`ABLATE: one of ${Object.keys(PATCHES).join(', ')}`);
  patch();
}

module.exports = { PARTS: Object.keys(PATCHES) };
