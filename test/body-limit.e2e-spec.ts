import { connect } from 'node:net';
import { MAX_BODY_BYTES } from '../src/common/http/json-body';
import { MAX_DRAINED_BYTES } from '../src/platform/request-drain';
import { ServiceProcess, startServiceProcess } from './support/service-process';

/**
 * Bodies over the 5 MB limit, sent to the service running as a process of its own, by Node's
 * `fetch` (undici), as an integrator's server would. Answering while the client is still sending
 * and then closing the connection with its data unread makes the kernel reset the connection:
 * the client, still writing, often never reads the 413 ("fetch failed", EPIPE). On Fastify it
 * did so for about a third of such requests, so twenty of each size fail on that code.
 */
describe('a body over the limit', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await startServiceProcess({});
  });
  afterAll(() => service?.stop());

  const send = async (body: string, type = 'application/json') => {
    try {
      const response = await fetch(`${service.url}/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': type },
        body,
      });
      return { status: response.status, body: await response.json() };
    } catch (error) {
      return { failed: `${String(error)} (${String((error as Error).cause)})` };
    }
  };

  it.each([
    ['6 MB', 6 * 1024 * 1024],
    ['32 MB', 32 * 1024 * 1024],
  ])(
    'answers every one of twenty %s bodies 413 PAYLOAD_TOO_LARGE',
    async (_size, bytes) => {
      const body = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(bytes) });
      const envelope = {
        status: 413,
        body: { success: false, error: 'PAYLOAD_TOO_LARGE', message: expect.any(String) },
      };
      for (let i = 0; i < 20; i++) {
        expect({ attempt: i, ...(await send(body)) }).toEqual({ attempt: i, ...envelope });
      }
    },
    90_000,
  );

  it('answers a large body of another type 415 as reliably', async () => {
    const body = 'x'.repeat(6 * 1024 * 1024);
    for (let i = 0; i < 20; i++) {
      expect({ attempt: i, ...(await send(body, 'text/plain')) }).toEqual({
        attempt: i,
        status: 415,
        body: { success: false, error: 'UNSUPPORTED_MEDIA_TYPE', message: expect.any(String) },
      });
    }
  });

  it.each([
    ['a Content-Length it never reaches', false],
    ['chunks that never end', true],
  ])('closes the connection of a sender of %s once the bound is read', async (_kind, chunked) => {
    const { sent, closed } = await sendForever(service.url, chunked);
    expect(closed).toBe(true);
    // What the kernel buffers on both sides comes on top of what the service read.
    expect(sent).toBeGreaterThan(MAX_BODY_BYTES);
    expect(sent).toBeLessThan(MAX_DRAINED_BYTES + 32 * 1024 * 1024);
  });
});

/**
 * Writes a body as fast as the connection takes it, and never ends it, until the service closes
 * the connection or four times the bound has gone out.
 */
function sendForever(url: string, chunked: boolean): Promise<{ sent: number; closed: boolean }> {
  const { hostname, port } = new URL(url);
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const frame = chunked
    ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
    : chunk;
  const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${1024 ** 4}`;
  return new Promise((resolve) => {
    let sent = 0;
    const socket = connect(Number(port), hostname);
    const finish = (closed: boolean) => {
      socket.destroy();
      resolve({ sent, closed });
    };
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('data', () => undefined);
    socket.on('connect', () => {
      socket.write(
        `POST /api/v1/auth/login HTTP/1.1\r\nHost: ${hostname}\r\n` +
          `Content-Type: application/json\r\n${framing}\r\n\r\n`,
      );
      const pump = (): void => {
        while (!socket.destroyed) {
          if (sent > 4 * MAX_DRAINED_BYTES) return finish(false);
          sent += frame.length;
          if (!socket.write(frame)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
}
