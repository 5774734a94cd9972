/** Every route of the API is served under this prefix, except those declared with their full path. */
export const API_PREFIX = 'api/v1';
