import { Secret, TOTP } from 'otpauth';

/**
 * An authenticator app holding one secret: it shows the code of the current 30-second step. The
 * service accepts a step once (and one step either side of now), so a test that needs several
 * codes gets the next unused step, waiting for the clock when the window is used up.
 */
export class Authenticator {
  private readonly totp: TOTP;
  private lastStep = -Infinity;

  constructor(secret: string) {
    this.totp = new TOTP({
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
      secret: Secret.fromBase32(secret),
    });
  }

  /** A code the service has not seen yet. */
  async code(): Promise<string> {
    for (;;) {
      const step = Math.floor(Date.now() / 30_000);
      for (const candidate of [step - 1, step, step + 1]) {
        if (candidate > this.lastStep) {
          this.lastStep = candidate;
          return this.totp.generate({ timestamp: candidate * 30_000 });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, (step + 1) * 30_000 - Date.now() + 50));
    }
  }

  /** A code of this secret's the service has accepted already (a replay). */
  usedCode(): string {
    return this.totp.generate({ timestamp: this.lastStep * 30_000 });
  }
}
