/** JWT time: whole seconds since the epoch. */
export function epochSeconds(date: Date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}
