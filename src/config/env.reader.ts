export interface ConfigProblem {
  variable: string;
  problem: string;
}

/**
 * Every invalid variable found at boot; its message is the one line printed then, naming each of
 * them, so an operator fixes the environment in one pass rather than one restart per variable.
 */
export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(
      `Invalid configuration: ${problems.map(({ variable, problem }) => `${variable} ${problem}`).join('; ')}`,
    );
    this.name = 'ConfigError';
  }

  static of(variable: string, problem: string): ConfigError {
    return new ConfigError([{ variable, problem }]);
  }
}

export type RawEnv = Record<string, string | undefined>;

/**
 * Reads typed values from the raw environment; empty strings count as unset. An invalid value is
 * recorded and its fallback returned, so reading goes on and every bad variable is found;
 * `assertValid` then throws them all at once.
 */
export class EnvReader {
  private readonly problems: ConfigProblem[] = [];

  constructor(private readonly env: RawEnv) {}

  /** One problem per variable: the first found, as a later check may only follow from it. */
  report(variable: string, problem: string): void {
    if (this.isValid(variable)) this.problems.push({ variable, problem });
  }

  isValid(variable: string): boolean {
    return !this.problems.some((known) => known.variable === variable);
  }

  /** Runs a reader that throws ConfigError, recording its problems; undefined when it threw. */
  attempt<T>(read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const { variable, problem } of error.problems) this.report(variable, problem);
      return undefined;
    }
  }

  assertValid(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }

  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      this.report(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    this.report(name, `must be true or false (got "${raw}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    // Case-insensitive, returned as spelled in `allowed` (es256 is ES256).
    const match = allowed.find((value) => value.toLowerCase() === raw.toLowerCase());
    if (match === undefined) {
      this.report(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return match;
  }

  /** An http(s) URL, returned without a trailing slash. */
  url(name: string, fallback: string): string {
    const raw = this.string(name) ?? fallback;
    if (!isHttpUrl(raw)) {
      this.report(name, `must be an http(s) URL (got "${raw}")`);
      return fallback;
    }
    return raw.replace(/\/+$/, '');
  }

  /** A comma-separated list of origins (scheme://host[:port]), normalised by the URL parser. */
  origins(name: string, fallback: readonly string[]): string[] {
    const raw = this.string(name);
    if (raw === undefined) return [...fallback];
    const items = raw
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    const bad = items.find((item) => !isHttpUrl(item));
    if (bad !== undefined) {
      this.report(name, `must list http(s) origins separated by commas (got "${bad}")`);
      return [...fallback];
    }
    return items.map((item) => new URL(item).origin);
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
