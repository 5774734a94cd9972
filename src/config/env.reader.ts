/** Thrown for the first invalid variable; its message is the one line printed at boot. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export type RawEnv = Record<string, string | undefined>;

/** Reads typed values from the raw environment; empty strings count as unset. */
export class EnvReader {
  constructor(private readonly env: RawEnv) {}

  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
    }
    return Number(raw);
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new ConfigError(name, `must be true or false (got "${raw}")`);
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    // Case-insensitive, returned as spelled in `allowed` (es256 is ES256).
    const match = allowed.find((value) => value.toLowerCase() === raw.toLowerCase());
    if (match === undefined) {
      throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
    }
    return match;
  }

  /** An http(s) URL, returned without a trailing slash. */
  url(name: string, fallback: string): string {
    const raw = this.string(name) ?? fallback;
    if (!isHttpUrl(raw)) throw new ConfigError(name, `must be an http(s) URL (got "${raw}")`);
    return raw.replace(/\/+$/, '');
  }

  /** A comma-separated list of origins (scheme://host[:port]), normalised by the URL parser. */
  origins(name: string, fallback: readonly string[]): string[] {
    const raw = this.string(name);
    if (raw === undefined) return [...fallback];
    return raw
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)
      .map((item) => {
        if (!isHttpUrl(item)) {
          throw new ConfigError(
            name,
            `must list http(s) origins separated by commas (got "${item}")`,
          );
        }
        return new URL(item).origin;
      });
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
