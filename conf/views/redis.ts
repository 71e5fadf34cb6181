import type { Config } from '../config.js';

/**
 * [apim.redis_config] (Sluice's section, docs/configuration.md): the Redis that several gateway nodes share
 * throttle counters and decisions through. Plain data; the password is for the client only, never logged.
 */
export interface RedisView {
  readonly enabled: boolean;
  /** redis://[user:password@]host:port[/db] when written; else built from host and port. */
  readonly url: string | undefined;
  readonly host: string;
  readonly port: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly keyPrefix: string;
  /** ms between two flushes of local counts (and read-backs of global ones). */
  readonly syncIntervalMs: number;
}

export function redisView(config: Config): RedisView {
  return {
    enabled: config.get('apim.redis_config.enable'),
    url: config.get('apim.redis_config.url'),
    host: config.get('apim.redis_config.host'),
    port: config.get('apim.redis_config.port'),
    username: config.get('apim.redis_config.username'),
    password: config.get('apim.redis_config.password'),
    keyPrefix: config.get('apim.redis_config.key_prefix'),
    syncIntervalMs: config.get('apim.redis_config.sync_interval'),
  };
}
