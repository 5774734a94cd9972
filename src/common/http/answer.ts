/** A request as answered, in the same terms on either platform. */
export interface Answer {
  requestId: string;
  method: string;
  /** The URL's path, without the query string (emailed links carry their token there). */
  path: string;
  /** The matched route's pattern, undefined when no route matched. */
  route: string | undefined;
  status: number;
  milliseconds: number;
}

/** Something done with every answer once it is sent (a log line, a timing). */
export type AnswerObserver = (answer: Answer) => void;

export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
