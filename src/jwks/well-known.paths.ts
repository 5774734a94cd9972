import { API_PREFIX } from '../platform/api-prefix';

/** Where verifiers look for the key set by default: at the origin's root (RFC 8615). */
export const JWKS_PATH = '.well-known/jwks.json';
/** RFC 8414 authorization-server metadata, for an issuer without a path. */
export const METADATA_PATH = '.well-known/oauth-authorization-server';
/** Where the key set was first published; kept for verifiers already configured with it. */
export const API_JWKS_PATH = `${API_PREFIX}/${JWKS_PATH}`;

/**
 * Their controllers declare these paths in full: a standard fixes where they are, not the API's
 * version, so the global prefix must leave them as they are.
 */
export const WELL_KNOWN_ROUTES: readonly string[] = [JWKS_PATH, API_JWKS_PATH, METADATA_PATH];
