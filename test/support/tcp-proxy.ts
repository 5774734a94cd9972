import { AddressInfo, Server, Socket, connect, createServer } from 'node:net';

/**
 * A TCP proxy the test owns, in front of a shared server (Redis, MariaDB), to fail it without
 * touching the machine's server: `cut()` drops every connection and refuses new ones, as a
 * server that went away; `stall()` drops them and accepts new ones without ever answering, as a
 * server that hangs; `freeze()` keeps every connection open but delivers nothing more to the
 * server, as a frozen one (replies it had already sent still arrive, as they would from a
 * stopped process's socket). A client that gives up a connection takes the server side down
 * with it, and what the proxy held back is never delivered.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** Client → server halves, to hold back while frozen. */
  private readonly requests = new Map<Socket, Socket>();
  /** Accept connections but relay nothing: a server that hangs instead of refusing. */
  private stalled = false;
  private frozen = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private targetPort: number,
  ) {}

  /** Relays new connections to `port` (a server that listened after the proxy started). */
  retarget(port: number): void {
    this.targetPort = port;
  }

  async start(): Promise<this> {
    await this.listen(0);
    return this;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  restore(): Promise<void> {
    this.stalled = false;
    this.frozen = false;
    return this.listen(this.port);
  }

  /** Drops every connection and then accepts new ones without ever answering. */
  stall(): void {
    this.stalled = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /** Back to relaying, after `stall()`. */
  unstall(): void {
    this.stalled = false;
  }

  /**
   * Open connections go silent; new ones are accepted and never answered, or, with
   * `newConnections: 'relay'`, served as usual (a peer that vanished without closing its
   * connections, as in a failover: only a new connection reaches the server).
   */
  freeze(options: { newConnections?: 'hang' | 'relay' } = {}): void {
    this.frozen = options.newConnections !== 'relay';
    for (const [client, upstream] of this.requests) {
      client.unpipe(upstream);
      client.pause();
    }
  }

  /** Relays again what was held back and what comes next, after `freeze()`. */
  thaw(): void {
    this.frozen = false;
    for (const [client, upstream] of this.requests) client.pipe(upstream);
  }

  private dropMarker: string | undefined;
  private readonly doomed = new Set<Socket>();
  private dropped: (() => void) | undefined;

  /**
   * The next connection that sends `marker` (a statement's text) has it delivered, and is closed
   * when the server answers, before the answer is relayed: the server did the work and the
   * client never hears of it, as when a network fails between the two. Resolves once it has.
   */
  dropAnswerTo(marker: string): Promise<void> {
    this.dropMarker = marker;
    return new Promise((resolve) => {
      this.dropped = resolve;
    });
  }

  stop(): Promise<void> {
    return this.cut();
  }

  private listen(port: number): Promise<void> {
    const server = createServer((client) => this.relay(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        this.port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  /** Every new connection waits this long before it reaches the server: a slow handshake. */
  connectDelayMs = 0;

  private relay(client: Socket): void {
    if (this.connectDelayMs > 0) {
      client.pause();
      client.on('error', () => undefined);
      setTimeout(() => {
        if (!client.destroyed) this.relayNow(client);
      }, this.connectDelayMs);
      return;
    }
    this.relayNow(client);
  }

  private relayNow(client: Socket): void {
    if (this.stalled || this.frozen) {
      this.sockets.add(client);
      client.on('error', () => undefined);
      client.on('close', () => this.sockets.delete(client));
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    client.on('data', (chunk: Buffer) => {
      if (this.dropMarker && chunk.includes(this.dropMarker)) {
        this.dropMarker = undefined;
        this.doomed.add(client);
      }
    });
    // Before the relay's own listener: a doomed connection is gone before the answer is relayed.
    upstream.on('data', () => {
      if (!this.doomed.delete(client)) return;
      client.destroy();
      upstream.destroy();
      this.dropped?.();
    });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      this.sockets.add(from);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        this.requests.delete(client);
        to.destroy();
      });
      from.pipe(to);
    }
    this.requests.set(client, upstream);
  }
}
