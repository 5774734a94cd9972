import { HttpPlatform } from '../config/config.sections';
import { expressPlatform } from './express.platform';
import { fastifyPlatform } from './fastify.platform';
import { HttpPlatformKit } from './platform-setup';

/** The one place that picks Express (the default) or Fastify (`HTTP_PLATFORM=fastify`). */
export function httpPlatform(name: HttpPlatform): HttpPlatformKit {
  return name === 'fastify' ? fastifyPlatform() : expressPlatform();
}
