import { Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

type Target = Type | ((...args: never[]) => unknown);

/**
 * Guards read route metadata on every request (the throttler a dozen entries: skip, limit, ttl…
 * per named limit; the second-factor guard two); a route's decorators never change once the app
 * runs, so each answer is kept, per handler, class and key. Every other method is Nest's own.
 */
export class RouteMetadataCache extends Reflector {
  private readonly answers = new WeakMap<Target, Map<Target, Map<unknown, unknown>>>();

  constructor(private readonly reflector: Reflector) {
    super();
  }

  override getAllAndOverride<TResult = unknown, TKey = unknown>(
    key: TKey,
    targets: Target[],
  ): TResult {
    if (targets.length !== 2) return this.reflector.getAllAndOverride(key, targets);
    const [handler, owner] = targets;
    let byOwner = this.answers.get(handler);
    if (!byOwner) this.answers.set(handler, (byOwner = new Map<Target, Map<unknown, unknown>>()));
    let byKey = byOwner.get(owner);
    if (!byKey) byOwner.set(owner, (byKey = new Map<unknown, unknown>()));
    if (!byKey.has(key)) byKey.set(key, this.reflector.getAllAndOverride(key, targets));
    return byKey.get(key) as TResult;
  }
}
