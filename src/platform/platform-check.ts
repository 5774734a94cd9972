import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ConfiguredAdapter } from './platform-setup';

/**
 * An HTTP app built without the platform kit (`moduleRef.createNestApplication()` alone) would
 * serve without the service's body rules, cookies, security headers or `/api/v1` prefix, and
 * answer wrongly in silence: it is refused at start instead. An application context without HTTP
 * (a script using the services) is not concerned.
 */
@Injectable()
export class PlatformCheck implements OnApplicationBootstrap {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onApplicationBootstrap(): void {
    const adapter = this.adapterHost.httpAdapter as Partial<ConfiguredAdapter> | undefined;
    if (adapter && adapter.configured !== true) {
      throw new Error(
        'The HTTP app was built without the service platform: use createApp() or ' +
          'createTestingApp(moduleRef) from src/app.factory.ts',
      );
    }
  }
}
