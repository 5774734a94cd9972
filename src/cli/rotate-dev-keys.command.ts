import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'dotenv';
import { rotateDevKeys } from '../config/dev-signing-keys';
import { ConfigError, EnvReader } from '../config/env.reader';
import {
  ACCESS_ALGORITHMS,
  signingKeyFromPem,
  verificationKeysFromPem,
} from '../config/signing-keys';

/**
 * `npm run keys:rotate`: outside production, replaces the generated access-token signing key with
 * a new one; the old one keeps verifying until ACCESS_TOKEN_TTL after the next start, then is
 * dropped. Reads `.env` and the environment as the service does (the environment wins), but not
 * through loadConfig: loading the configuration counts as a start and would begin the old key's
 * window while a running service may still be signing with it.
 */
function main(): void {
  const env = { ...(existsSync('.env') ? parse(readFileSync('.env')) : {}), ...process.env };
  const read = new EnvReader(env);
  if (read.string('NODE_ENV') === 'production') {
    throw new Error('in production the keys come from JWT_PRIVATE_KEY(_FILE): rotate them there');
  }
  const algorithm = read.oneOf('JWT_ALGORITHM', 'HS256', ACCESS_ALGORITHMS);
  read.assertValid();
  if (algorithm === 'HS256') {
    throw new Error('JWT_ALGORITHM is HS256, which has no key pair to rotate');
  }
  if (read.string('JWT_PRIVATE_KEY') ?? read.string('JWT_PRIVATE_KEY_FILE')) {
    throw new Error('the signing key comes from JWT_PRIVATE_KEY(_FILE): rotate it there');
  }
  const rotated = rotateDevKeys(resolve(read.string('DATA_DIR') ?? './data'), algorithm);
  const next = signingKeyFromPem(rotated.privateKey, algorithm).kid;
  const retired =
    rotated.retiredPublicKey && verificationKeysFromPem(rotated.retiredPublicKey, algorithm)[0].kid;
  process.stdout.write(
    `New ${algorithm} signing key ${next} in ${rotated.file}.\n` +
      (retired
        ? `The previous key ${retired} keeps verifying until ACCESS_TOKEN_TTL after the next start.\n`
        : '') +
      'Restart the service to sign with the new key.\n',
  );
}

try {
  main();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `${error instanceof ConfigError ? message : `Cannot rotate the keys: ${message}`}\n`,
  );
  process.exit(1);
}
