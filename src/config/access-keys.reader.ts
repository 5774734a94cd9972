import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AccessSigning } from './config.sections';
import { devKeysFile, loadOrCreateDevKeys } from './dev-signing-keys';
import { ConfigError, EnvReader } from './env.reader';
import {
  AccessAlgorithm,
  AsymmetricAlgorithm,
  KeyProblem,
  SigningKey,
  VerificationKey,
  signingKeyFromPem,
  verificationKeysFromPem,
} from './signing-keys';

const KEY_VARIABLES = [
  'JWT_PRIVATE_KEY',
  'JWT_PRIVATE_KEY_FILE',
  'JWT_PREVIOUS_PUBLIC_KEYS',
  'JWT_PREVIOUS_PUBLIC_KEYS_FILE',
];

interface Context {
  production: boolean;
  dataDir: string;
  accessTtl: number;
}

/**
 * The access-token keys. HS256 takes the access secret as before. ES256 takes the signing
 * key from JWT_PRIVATE_KEY(_FILE), required in production, or generates it into DATA_DIR
 * otherwise; JWT_PREVIOUS_PUBLIC_KEYS(_FILE) adds keys that still verify.
 */
export function readAccessSigning(
  read: EnvReader,
  algorithm: AccessAlgorithm,
  accessSecret: string | undefined,
  context: Context,
): AccessSigning {
  if (algorithm === 'HS256') {
    // A key pair configured under the default algorithm is a forgotten JWT_ALGORITHM.
    const stray = KEY_VARIABLES.find((name) => read.string(name) !== undefined);
    if (stray) throw ConfigError.of(stray, 'is used only with JWT_ALGORITHM=ES256');
    if (accessSecret === undefined) throw ConfigError.of('JWT_ACCESS_SECRET', 'is required');
    return { algorithm, secret: accessSecret };
  }

  const privateSource = readPem(read, 'JWT_PRIVATE_KEY');
  const previousSource = readPem(read, 'JWT_PREVIOUS_PUBLIC_KEYS');
  let current: SigningKey;
  let previous: VerificationKey[] = [];
  let file: string | undefined;
  if (privateSource) {
    current = parse(privateSource.variable, () => signingKeyFromPem(privateSource.text, algorithm));
  } else if (context.production) {
    throw ConfigError.of(
      'JWT_PRIVATE_KEY',
      `(or JWT_PRIVATE_KEY_FILE) is required when NODE_ENV=production and JWT_ALGORITHM=${algorithm}`,
    );
  } else {
    ({ current, previous, file } = readDevKeys(algorithm, context));
  }
  if (previousSource) {
    previous.push(
      ...parse(previousSource.variable, () =>
        verificationKeysFromPem(previousSource.text, algorithm),
      ),
    );
  }
  return {
    algorithm,
    current,
    // The current key may still be listed among the previous ones during a rotation.
    previous: unique(previous).filter((key) => key.kid !== current.kid),
    devKeysFile: file,
  };
}

/** `NAME` holds the PEM itself, `NAME_FILE` the path of a file holding it; one of them at most. */
function readPem(read: EnvReader, name: string): { variable: string; text: string } | undefined {
  const inline = read.string(name);
  const path = read.string(`${name}_FILE`);
  if (inline !== undefined && path !== undefined) {
    throw ConfigError.of(`${name}_FILE`, `cannot be set together with ${name}`);
  }
  if (inline !== undefined) return { variable: name, text: inline };
  if (path === undefined) return undefined;
  try {
    return { variable: `${name}_FILE`, text: readFileSync(resolve(path), 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw ConfigError.of(`${name}_FILE`, `cannot be read (${code}: ${path})`);
  }
}

function readDevKeys(algorithm: AsymmetricAlgorithm, context: Context) {
  const file = devKeysFile(context.dataDir, algorithm);
  const where = (problem: string) =>
    ConfigError.of('DATA_DIR', `holds ${file}, which ${problem.replace(/^must/, 'should')}`);
  let stored;
  try {
    stored = loadOrCreateDevKeys(context.dataDir, algorithm, context.accessTtl);
  } catch (error) {
    throw where((error as Error).message);
  }
  try {
    return {
      current: signingKeyFromPem(stored.privateKey, algorithm),
      previous: stored.previousPublicKeys.flatMap((pem) => verificationKeysFromPem(pem, algorithm)),
      file,
    };
  } catch (error) {
    throw where(error instanceof KeyProblem ? error.message : 'cannot be read');
  }
}

function parse<T>(variable: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof KeyProblem) throw ConfigError.of(variable, error.message);
    throw error;
  }
}

function unique(keys: VerificationKey[]): VerificationKey[] {
  return [...new Map(keys.map((key) => [key.kid, key])).values()];
}
