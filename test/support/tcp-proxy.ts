import { AddressInfo, Server, Socket, connect, createServer } from 'node:net';

/**
 * A TCP proxy the test owns, in front of a shared server (Redis, MariaDB): `cut()` drops every
 * connection and refuses new ones, as a server that went away would, without touching the
 * machine's shared server; `restore()` brings it back on the same port.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** Accept connections but relay nothing: a server that hangs instead of refusing. */
  private stalled = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

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

  private relay(client: Socket): void {
    if (this.stalled) {
      this.sockets.add(client);
      client.on('error', () => undefined);
      client.on('close', () => this.sockets.delete(client));
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      this.sockets.add(from);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
      from.pipe(to);
    }
  }
}
