import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './free-port';

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface IdentityProviderProcess {
  issuer: string;
  stop(): Promise<void>;
}

/** oidc-provider on a loopback port of its own, for the given clients. */
export async function startIdentityProvider(
  clients: TestClient[],
  options: {
    anyLoopbackRedirect?: boolean;
    /** Serve a JWKS without the key that signs the ID tokens (their signature must be checked). */
    foreignJwks?: boolean;
  } = {},
): Promise<IdentityProviderProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'oidc-provider.js')], {
    env: {
      PATH: process.env.PATH,
      OIDC_PORT: String(port),
      OIDC_CLIENTS: JSON.stringify(clients),
      OIDC_ANY_LOOPBACK_REDIRECT: options.anyLoopbackRedirect ? '1' : '0',
      OIDC_FOREIGN_JWKS: options.foreignJwks ? '1' : '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`oidc-provider did not start: ${output}`)),
      20_000,
    );
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    void exited.then(() => reject(new Error(`oidc-provider exited: ${output}`)));
  });
  return {
    issuer: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A browser's part of the round trip, over HTTP: follows redirects by hand, keeping cookies per
 * host (their paths ignored: every cookie a host set goes back to it), and submits the provider's
 * login and consent forms.
 */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  cookie(url: string, name: string): string | undefined {
    return this.jars.get(new URL(url).host)?.get(name);
  }

  setCookie(url: string, name: string, value: string): void {
    const host = new URL(url).host;
    if (!this.jars.has(host)) this.jars.set(host, new Map());
    this.jars.get(host)!.set(name, value);
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const jar = this.jars.get(new URL(url).host);
    const cookie = jar ? [...jar].map(([name, value]) => `${name}=${value}`).join('; ') : '';
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const cleared = /max-age=0/i.test(line) || value === '';
      if (cleared) this.jars.get(new URL(url).host)?.delete(name);
      else this.setCookie(url, name, value);
    }
    return response;
  }

  /** Follows redirects from `url` while `until` says go on; the last answer and its URL. */
  async follow(
    url: string,
    until: (url: URL) => boolean = () => false,
  ): Promise<{ response: Response | undefined; url: string }> {
    let current = url;
    for (let hops = 0; hops < 20; hops += 1) {
      if (until(new URL(current))) return { response: undefined, url: current };
      const response = await this.request(current);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) {
        return { response, url: current };
      }
      current = new URL(location, current).toString();
    }
    throw new Error('too many redirects');
  }

  /**
   * From the provider's authorization URL through its login and consent pages, as `login`
   * (`subject:email:verified`), to the provider's redirect back: that URL, not yet visited.
   */
  async signInAtProvider(authorizationUrl: string, login: string, back: string): Promise<string> {
    const leaves = (url: URL) => url.href.startsWith(back);
    let step = await this.follow(authorizationUrl, leaves);
    for (let pages = 0; pages < 4 && !leaves(new URL(step.url)); pages += 1) {
      const html = (await step.response?.text()) ?? '';
      const action = /action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
      if (!action || !prompt)
        throw new Error(`no provider form at ${step.url}: ${html.slice(0, 300)}`);
      const body = new URLSearchParams({ prompt, login, password: 'any' });
      const posted = await this.request(new URL(action, step.url).toString(), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      });
      const next = new URL(posted.headers.get('location')!, step.url).toString();
      step = await this.follow(next, leaves);
    }
    return step.url;
  }
}
