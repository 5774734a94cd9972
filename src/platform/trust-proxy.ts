import { compile } from 'proxy-addr';
import { TrustProxySetting } from '../config/config.sections';

export type TrustFunction = (address: string, hop: number) => boolean;

/** Which hops may name the client in `X-Forwarded-For`: none, the nearest N, or listed ones. */
export function trustFunction(setting: TrustProxySetting): TrustFunction {
  if (setting === false) return () => false;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return compile(setting);
}
