import cors from 'cors';
import { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * Headers for a JSON API rather than for web pages: nothing may render, frame or load from a
 * response (`default-src 'none'`), no MIME sniffing, no referrer, HTTPS remembered. Helmet's
 * other defaults concern documents and would only add bytes to every token check. The link
 * pages set their own, page-specific policy.
 */
export function apiSecurityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
}

/**
 * Credentialed CORS for the configured origins. Only browsers send `Origin`, so requests without
 * one (servers, curl) skip the CORS work and headers; `Vary: Origin` is always set, because the
 * answer does differ by origin.
 */
export function corsForBrowsers(origins: readonly string[]): RequestHandler {
  const handle = cors({
    origin: [...origins],
    credentials: true,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'Accept', 'Authorization', 'X-Token-Delivery'],
    exposedHeaders: ['Retry-After'],
    maxAge: 600,
  });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.headers.origin === undefined) {
      res.setHeader('Vary', 'Origin');
      return next();
    }
    return handle(req, res, next);
  };
}
