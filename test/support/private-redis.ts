import { ChildProcess, spawn } from 'node:child_process';
import Redis from 'ioredis';
import { freePort } from './free-port';

/**
 * A redis-server of the test's own on a free port, with nothing saved to disk: the test may stop
 * it (SIGSTOP: a server that hangs with its connections open) and resume it (SIGCONT) without
 * touching the machine's Redis.
 */
export class PrivateRedis {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(): Promise<PrivateRedis> {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const server = new PrivateRedis(child, port);
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await probe.connect();
          await probe.ping();
          return server;
        } catch (error) {
          probe.disconnect();
          if (attempt === 50) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    } finally {
      probe.disconnect();
    }
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  freeze(): void {
    this.child.kill('SIGSTOP');
  }

  thaw(): void {
    this.child.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await exited;
  }
}
