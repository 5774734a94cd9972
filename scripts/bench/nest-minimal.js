'use strict';
// The framework's own ceiling: the smallest idiomatic NestJS app on Express (NestFactory's
// default platform, its defaults untouched) answering the service's verify-token request. One
// guard checks the bearer token through @nestjs/jwt's JwtService.verifyAsync, as the NestJS
// docs' auth guard does, on a KeyObject made once (createSecretKey: a string secret would be
// imported again on every check), HS256 pinned, issuer, audience and `typ` checked; users sit in
// a Map. The token and the answer have the service's shape (reference-tokens.js).
// Plain JS without a compiler: the decorators are @nestjs/common's, applied by hand.
require('reflect-metadata');
const { createSecretKey, randomBytes } = require('node:crypto');
const {
  Controller,
  Get,
  HttpCode,
  Inject,
  Injectable,
  Module,
  Post,
  Req,
  UnauthorizedException,
  UseGuards,
} = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { JwtModule, JwtService } = require('@nestjs/jwt');
const {
  accessPayload,
  accessSignOptions,
  accessUser,
  accessVerifyOptions,
  newUser,
  publicUser,
} = require('./reference-tokens');

const users = new Map();

/** Applies method decorators as TypeScript's `@Decorator() method() {}` would. */
function decorateMethod(target, key, decorators) {
  const descriptor = Object.getOwnPropertyDescriptor(target.prototype, key);
  Object.defineProperty(
    target.prototype,
    key,
    Reflect.decorate(decorators, target.prototype, key, descriptor),
  );
}

class AccessTokenGuard {
  constructor(jwt) {
    this.jwt = jwt;
  }

  async canActivate(context) {
    const request = context.switchToHttp().getRequest();
    const [scheme, token] = (request.headers.authorization ?? '').split(' ');
    let user;
    if (scheme === 'Bearer' && token) {
      try {
        user = accessUser(await this.jwt.verifyAsync(token), users);
      } catch {
        user = undefined;
      }
    }
    if (!user) {
      throw new UnauthorizedException({
        success: false,
        message: 'The token is invalid or has expired',
        error: 'INVALID_TOKEN',
      });
    }
    request.user = user;
    return true;
  }
}
Injectable()(AccessTokenGuard);
Inject(JwtService)(AccessTokenGuard, undefined, 0);

class AuthController {
  verifyToken(request) {
    return { success: true, message: 'Token is valid', data: { user: publicUser(request.user) } };
  }
}
Controller('api/v1/auth')(AuthController);
decorateMethod(AuthController, 'verifyToken', [Get('verify-token'), UseGuards(AccessTokenGuard)]);
Req()(AuthController.prototype, 'verifyToken', 0);

/** Not part of what is measured: hands the bench a user and a token, as the ceiling server does. */
class BenchController {
  constructor(jwt) {
    this.jwt = jwt;
  }

  session() {
    const user = newUser(users);
    return { access_token: this.jwt.sign(accessPayload(user, randomBytes(16).toString('hex'))) };
  }
}
Controller('bench')(BenchController);
Inject(JwtService)(BenchController, undefined, 0);
decorateMethod(BenchController, 'session', [Post('session'), HttpCode(200)]);

class AppModule {}
Module({
  imports: [
    JwtModule.register({
      secret: createSecretKey(randomBytes(48)),
      signOptions: accessSignOptions,
      verifyOptions: accessVerifyOptions,
    }),
  ],
  controllers: [AuthController, BenchController],
  providers: [AccessTokenGuard],
})(AppModule);

async function main() {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  await app.listen(Number(process.env.PORT || 0), '127.0.0.1');
  process.send?.({ port: app.getHttpServer().address().port });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
