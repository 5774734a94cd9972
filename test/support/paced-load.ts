/** One request of a paced load, as the client saw it. */
export interface Answer {
  kind: string;
  /** Client clock, epoch ms. */
  sentAt: number;
  ms: number;
  status: number;
  body: { success?: boolean; error?: string; message?: string } | undefined;
  /** What the request was about (the email a registration tried), to check the database later. */
  subject?: string;
}

export type Call = (url: string) => {
  kind: string;
  subject?: string;
  init?: RequestInit;
  path: string;
};

/**
 * Sends `perSecond` requests a second for `durationMs`, each on its own schedule (a slow answer
 * never holds the next request back, as with many clients), cycling through `calls`, and settles
 * with every answer once the last one is in. Bounded: at most perSecond × duration requests.
 */
export async function pacedLoad(
  baseUrl: string,
  perSecond: number,
  durationMs: number,
  calls: Call[],
): Promise<Answer[]> {
  const total = Math.floor((perSecond * durationMs) / 1000);
  const started = Date.now();
  const pending: Array<Promise<Answer>> = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(send(baseUrl, calls[i % calls.length](baseUrl)));
  }
  return Promise.all(pending);
}

async function send(baseUrl: string, call: ReturnType<Call>): Promise<Answer> {
  const sentAt = Date.now();
  const response = await fetch(`${baseUrl}${call.path}`, {
    ...call.init,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let body: Answer['body'];
  try {
    body = JSON.parse(text) as Answer['body'];
  } catch {
    body = undefined;
  }
  return {
    kind: call.kind,
    subject: call.subject,
    sentAt,
    ms: Date.now() - sentAt,
    status: response.status,
    body,
  };
}

export function jsonPost(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}
