import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver took, and whether the `standardwebhooks` package accepted it. */
export interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The body as `Webhook.verify` returned it; undefined when no secret of the path verified it. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> } | undefined;
  /** Which of the path's secrets verified it (each on its own). */
  verifiedBy: string[];
  at: number;
}

/** What a path answers: a status (at once, or after `delayMs`), or nothing (`hang`). */
export type Behaviour = number | 'hang' | { status: number; delayMs: number };

/**
 * A webhook receiver as a team would write one: a plain node:http server on loopback that
 * verifies each body with the `standardwebhooks` package, as it is, under the secrets the test
 * gives for each path. Everything it took is kept, in order.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly secrets = new Map<string, string[]>();
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly hanging = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      void receiver.take(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** The secrets bodies to `path` are verified with (each tried on its own). */
  trust(path: string, ...secrets: string[]): void {
    this.secrets.set(path, secrets);
  }

  answer(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  at(path: string): Received[] {
    return this.received.filter((entry) => entry.path === path);
  }

  /** Waits until `path` has taken `count` requests matching `filter` (all of them returned). */
  async waitFor(
    path: string,
    count: number,
    filter: (entry: Received) => boolean = () => true,
    timeoutMs = 15_000,
  ): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.at(path).filter(filter);
      if (found.length >= count) return found;
      if (Date.now() > deadline) {
        throw new Error(`${path} took ${found.length} of ${count} expected webhooks`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async take(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = request.url ?? '/';
    const headers = {
      'webhook-id': String(request.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
    };
    let payload: Received['payload'];
    const verifiedBy: string[] = [];
    for (const secret of this.secrets.get(path) ?? []) {
      try {
        payload = new Webhook(secret).verify(body, headers) as Received['payload'];
        verifiedBy.push(secret);
      } catch {
        // Not this secret's signature.
      }
    }
    this.received.push({
      path,
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body,
      payload,
      verifiedBy,
      at: Date.now(),
    });
    const behaviour = this.behaviours.get(path) ?? 200;
    if (behaviour === 'hang') {
      this.hanging.add(response);
      return;
    }
    if (typeof behaviour === 'object') {
      await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    }
    const status = typeof behaviour === 'object' ? behaviour.status : behaviour;
    // A sender killed meanwhile has reset the connection: nothing to answer.
    if (!response.destroyed) response.writeHead(status, { 'Content-Type': 'text/plain' }).end('ok');
  }
}
