import { lateTimer } from './late-timer';

/**
 * A dependency checked on a timer, never on a request: whoever asks gets the last result at once,
 * however slow the dependency is, and no amount of asking makes it checked more often. A check
 * still running past `lateMs` already counts as down: a dependency that hangs is reported within
 * that, not only when its own timeout ends the check. `onChange` hears of each change of the
 * result once (an outage, then its end), however often the result is read meanwhile.
 */
export class BackgroundCheck {
  private up = true;
  /** A check is under way. */
  private checking = false;
  /** The check under way has run past `lateMs` (and its answer was not waiting to be read). */
  private late = false;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly check: () => Promise<boolean>,
    private readonly intervalMs: number,
    private readonly lateMs: number,
    private readonly onChange?: (up: boolean, reason: string | undefined) => void,
  ) {}

  /** Checks now, then `intervalMs` after each check ends (never two at once). */
  start(): void {
    this.running = true;
    void this.tick();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  /** Checks at once (unless a check is under way): something suggests the answer changed. */
  checkNow(): void {
    if (!this.running || this.checking) return;
    clearTimeout(this.timer);
    void this.tick();
  }

  get isUp(): boolean {
    return this.up && !this.late;
  }

  private async tick(): Promise<void> {
    this.checking = true;
    // Not a comparison of clock readings: a stall of this process's own event loop would make
    // a prompt answer look late (lateTimer).
    const watch = lateTimer(this.lateMs, () => {
      this.late = true;
    });
    let reason: string | undefined;
    const answered = await this.check().catch((error: unknown) => {
      reason = error instanceof Error ? error.message : String(error);
      return false;
    });
    watch.cancel();
    const late = this.late;
    const up = answered && !late;
    if (answered && late) reason = `no answer within ${this.lateMs} ms`;
    this.checking = false;
    this.late = false;
    if (up !== this.up) this.onChange?.(up, reason);
    this.up = up;
    if (!this.running) return;
    this.timer = setTimeout(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }
}
