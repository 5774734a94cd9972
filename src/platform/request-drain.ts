import { IncomingMessage } from 'node:http';
import { MAX_BODY_BYTES } from '../common/http/json-body';

/**
 * The most of a request body the service reads, refused ones included, before it answers and
 * closes the connection: ten times the body limit. Below it, a client still sending gets its
 * answer; above it, a sender that never stops cannot hold a connection.
 */
export const MAX_DRAINED_BYTES = 10 * MAX_BODY_BYTES;

/**
 * Reads and discards what is left of a request body, then calls `then` with whether all of it
 * came (false: the bound was reached, or the client went away). An answer sent before the body
 * is in, on a connection then closed, is often lost: the kernel resets a connection closed with
 * data unread, and a client still writing sees the reset instead of the answer.
 */
export function drainRequest(req: IncomingMessage, then: (complete: boolean) => void): void {
  let read = 0;
  const finish = () => {
    req.off('data', count);
    req.off('end', finish);
    req.off('close', finish);
    req.off('error', finish);
    then(req.complete);
  };
  const count = (chunk: Buffer) => {
    read += chunk.length;
    // Still flowing after this: the rest is dropped until the connection closes.
    if (read > MAX_DRAINED_BYTES) finish();
  };
  req.on('data', count);
  req.once('end', finish);
  req.once('close', finish);
  req.once('error', finish);
  req.resume();
}
