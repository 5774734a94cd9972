import { createHash, randomBytes } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

export interface GitHubUser {
  id: number;
  login: string;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

/**
 * A small OAuth 2 server of GitHub's shape for the GitHub preset: `/login/oauth/authorize`
 * (approves at once, as the user `next` names), `/login/oauth/access_token` (checks the client,
 * the code, its redirect URI and the PKCE verifier), and the API's `/user` and `/user/emails`.
 */
export class GitHubServer {
  /** Who signs in at the next authorization. */
  next: GitHubUser | undefined;
  private server: Server | undefined;
  private readonly codes = new Map<
    string,
    { user: GitHubUser; redirectUri: string; challenge: string | null }
  >();
  private readonly tokens = new Map<string, GitHubUser>();

  constructor(
    private readonly clientId: string,
    private readonly clientSecret: string,
  ) {}

  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/login/oauth/authorize') {
      const params = url.searchParams;
      if (params.get('client_id') !== this.clientId || !this.next) return json(400, {});
      const code = randomBytes(10).toString('hex');
      const redirectUri = params.get('redirect_uri')!;
      this.codes.set(code, {
        user: this.next,
        redirectUri,
        challenge: params.get('code_challenge'),
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', params.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      return void res.end();
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      const form = new URLSearchParams(text);
      const grant = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const good =
        grant &&
        form.get('client_id') === this.clientId &&
        form.get('client_secret') === this.clientSecret &&
        form.get('redirect_uri') === grant.redirectUri &&
        grant.challenge === challenge;
      // GitHub answers a refused exchange 200 with an `error` field.
      if (!good) return json(200, { error: 'bad_verification_code' });
      const token = `gho_${randomBytes(16).toString('hex')}`;
      this.tokens.set(token, grant.user);
      return json(200, {
        access_token: token,
        token_type: 'bearer',
        scope: 'read:user,user:email',
      });
    }
    const user = this.tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!user) return json(401, { message: 'Bad credentials' });
    if (url.pathname === '/user') return json(200, { id: user.id, login: user.login, email: null });
    if (url.pathname === '/user/emails') {
      return json(
        200,
        user.emails.map((email) => ({ ...email, visibility: email.primary ? 'public' : null })),
      );
    }
    json(404, { message: 'Not Found' });
  }
}
