export interface SpaServer {
  /** The page's origin, e.g. `http://localhost:5173`. */
  url: string;
  close(): Promise<void>;
}

export function startSpaServer(options?: {
  port?: number;
  host?: string;
  /** The service's base URL, version included. */
  apiUrl?: string;
}): Promise<SpaServer>;
