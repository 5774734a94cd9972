import { CanActivate, Type, UseGuards, applyDecorators, SetMetadata } from '@nestjs/common';

/** A guard that answers a switched-off feature's routes as absent (404 NOT_FOUND). */
export interface FeatureSwitch extends CanActivate {
  readonly enabled: boolean;
}

/** Route metadata: the switch a controller's routes hang on. */
export const FEATURE_SWITCH = Symbol('featureSwitch');

/**
 * The routes answer only while `gate` is on, and 404 NOT_FOUND otherwise. The global rate limit
 * reads this metadata too (it runs before any controller guard) and counts a switched-off route
 * as an absent one: on the general limit only. Under the strict limit it would end in 429 sooner
 * than an absent route, and take the caller's login budget with it.
 */
export const SwitchedBy = (gate: Type<FeatureSwitch>): ClassDecorator =>
  applyDecorators(SetMetadata(FEATURE_SWITCH, gate), UseGuards(gate));
