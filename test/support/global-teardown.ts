import { removeServiceBuild } from './service-build';

export default function globalTeardown(): void {
  removeServiceBuild();
}
