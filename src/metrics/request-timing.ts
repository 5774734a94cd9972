import { AnswerObserver } from '../common/http/answer';
import { Metrics } from './metrics.service';

/**
 * Every answer's time, labelled by the route's pattern (never the raw URL, whose ids and typos
 * would make a series each). Requests no route matched share one label.
 */
export function requestTiming(metrics: Metrics): AnswerObserver {
  return (answer) => {
    metrics.requestDuration.observe(
      {
        method: answer.method,
        route: answer.route ?? 'unmatched',
        status_code: String(answer.status),
      },
      answer.milliseconds / 1000,
    );
  };
}
