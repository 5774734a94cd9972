import { AnswerObserver } from '../common/http/answered.hook';
import { Metrics } from './metrics.service';

/**
 * Every answer's time, labelled by the route's pattern (never the raw URL, whose ids and typos
 * would make a series each). Requests no route matched share one label.
 */
export function requestTiming(metrics: Metrics): AnswerObserver {
  return (request, reply) => {
    metrics.requestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  };
}
