import { QueryFailedError } from 'typeorm';

/** mysql2 error codes and errnos meaning "the server is not reachable or went away". */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'POOL_CLOSED',
]);

function driverError(error: unknown): { code?: string; errno?: number; message?: string } {
  const inner = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  return typeof inner === 'object' && inner !== null ? inner : {};
}

export function isUniqueViolation(error: unknown): boolean {
  const inner = driverError(error);
  return (
    inner.code === 'ER_DUP_ENTRY' ||
    inner.errno === 1062 ||
    /UNIQUE constraint failed/.test(inner.message ?? '')
  );
}

/** A row that names a parent row no longer there (the user deleted in the meantime). */
export function isForeignKeyViolation(error: unknown): boolean {
  const inner = driverError(error);
  return (
    inner.code === 'ER_NO_REFERENCED_ROW_2' ||
    inner.errno === 1452 ||
    /FOREIGN KEY constraint failed/.test(inner.message ?? '')
  );
}

export function isConnectionFailure(error: unknown): boolean {
  const inner = driverError(error);
  return (
    (inner.code !== undefined && CONNECTION_CODES.has(inner.code)) ||
    /connect ETIMEDOUT|Connection lost|Pool is closed|Can't add new command when connection is in closed state/.test(
      inner.message ?? '',
    )
  );
}

/**
 * InnoDB deadlock or lock-wait timeout, or SQLite's file locked by another process past the busy
 * timeout (or a read snapshot another process's write made stale): the transaction failed as a
 * whole and may be retried.
 */
export function isTransientConflict(error: unknown): boolean {
  const inner = driverError(error);
  return (
    inner.errno === 1213 ||
    inner.errno === 1205 ||
    inner.code === 'SQLITE_BUSY' ||
    inner.code === 'SQLITE_BUSY_SNAPSHOT'
  );
}
