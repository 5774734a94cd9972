/** A timer `lateTimer` started: `cancel()` before it has called back stops it. */
export interface LateTimer {
  cancel(): void;
}

/**
 * Calls `late` once `ms` have passed, but only after the event loop has read the I/O that
 * arrived meanwhile. A plain timer fires before pending I/O is read: after the loop stalled (a
 * burst of synchronous work, such as a second app booting in the same process, or a long GC
 * pause), a timeout would call an answer late that was only waiting to be read. The callback
 * goes in the loop's check phase (`setImmediate`), which comes after the poll phase that reads
 * it; an answer that really is missing is still called late one loop turn after `ms`.
 */
export function lateTimer(ms: number, late: () => void): LateTimer {
  let immediate: NodeJS.Immediate | undefined;
  const timer = setTimeout(() => {
    immediate = setImmediate(late);
  }, ms);
  return {
    cancel: () => {
      clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
    },
  };
}
