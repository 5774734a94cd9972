/** A place in the listing's order (newest first, then by id): the last user a page showed. */
export interface ListPosition {
  createdAt: Date;
  id: string;
}

/** Longer than any cursor this module writes: refused before decoding. */
export const MAX_CURSOR_LENGTH = 128;
const ID = /^[A-Za-z0-9_-]{1,32}$/;
/** The range of a JavaScript Date, in milliseconds either side of 1970. */
const MAX_TIME = 8.64e15;

/**
 * Opaque to clients (base64url of JSON), and only a position: a cursor changed by hand lists
 * from wherever it points, which an administrator could reach by paging anyway.
 */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id])).toString(
    'base64url',
  );
}

/** The position a cursor names, or undefined for anything this module did not write. */
export function decodeCursor(cursor: string): ListPosition | undefined {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [time, id] = value as unknown[];
  if (!Number.isSafeInteger(time) || Math.abs(time as number) > MAX_TIME) return undefined;
  if (typeof id !== 'string' || !ID.test(id)) return undefined;
  return { createdAt: new Date(time as number), id };
}
