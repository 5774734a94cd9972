import { buildService } from './service-build';

/** Once per Jest run, before any worker starts (they inherit the variable it sets). */
export default function globalSetup(): void {
  buildService();
}
