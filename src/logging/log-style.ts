/** Whether the log is written as readable lines (pino-pretty) rather than JSON. */
export class LogStyle {
  constructor(readonly readable: boolean) {}
}
