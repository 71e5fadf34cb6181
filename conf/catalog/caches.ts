import { key } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): caches.
 */

/** [apim.cache.*]: the token, resource, scope, claim and tag caches. */
export const CACHES = [
  // [apim.cache.gateway_token]
  key('apim.cache.gateway_token', 'enable', 'boolean', { default: true, notes: 'Use either this cache or the key manager cache, not both.' }),
  key('apim.cache.gateway_token', 'expiry_time', 'duration', { default: 900000, notes: '15 minutes.' }),
  // [apim.cache.resource]
  key('apim.cache.resource', 'enable', 'boolean', { default: true, notes: 'expires in 15 minutes.' }),
  // [apim.cache.km_token]
  key('apim.cache.km_token', 'enable', 'boolean', { default: false }),
  key('apim.cache.km_token', 'expiry_time', 'duration', { default: 900000, notes: '15 minutes.' }),
  // [apim.cache.recent_apis]
  key('apim.cache.recent_apis', 'enable', 'boolean', { default: false, notes: 'expires in 15 minutes.' }),
  // [apim.cache.scopes]
  key('apim.cache.scopes', 'enable', 'boolean', { default: true, notes: 'expires in 15 minutes.' }),
  // [apim.cache.publisher_roles]
  key('apim.cache.publisher_roles', 'enable', 'boolean', { default: true, notes: 'expires in 15 minutes.' }),
  // [apim.cache.jwt_claim]
  key('apim.cache.jwt_claim', 'enable', 'boolean', { default: true }),
  key('apim.cache.jwt_claim', 'expiry_time', 'duration', { notes: 'default: same as JWT expiry' }),
  // [apim.cache.tags]
  key('apim.cache.tags', 'expiry_time', 'duration', { default: 120000, notes: '2m; the cache is disabled when undefined.' }),
] as const;
