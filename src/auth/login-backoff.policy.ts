import { LoginBackoffConfig } from '../config/config.sections';

/**
 * Milliseconds an account waits after its `attempts`-th counted attempt in a row, 0 while the
 * attempts are still free. The exponent is bounded so the doubling never leaves safe integers.
 */
export function backoffMs(config: LoginBackoffConfig, attempts: number): number {
  if (attempts < config.free) return 0;
  const doublings = Math.min(attempts - config.free, 40);
  return Math.min(config.maxSeconds, config.baseSeconds * 2 ** doublings) * 1000;
}
