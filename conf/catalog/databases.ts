import { key } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): the databases.
 */

/** [database_configuration] and the [database.*] connections (apim_db, shared_db). */
export const DATABASES = [
  // [database_configuration]
  key('database_configuration', 'enable_h2_console', 'boolean', { default: false, notes: 'true allows browsing the embedded database from a browser.' }),

  // [database.apim_db]
  key('database.apim_db', 'type', 'string', { default: 'h2', allowed: ['mysql', 'h2', 'mssql', 'postgre', 'oracle', 'db2'] }),
  key('database.apim_db', 'hostname', 'string', { notes: 'Use with port, or use url; url overrides both.' }),
  key('database.apim_db', 'port', 'integer', { notes: 'catalog type string; database server port (not offset).' }),
  key('database.apim_db', 'url', 'string', { notes: 'default: embedded database URL; required for h2.' }),
  key('database.apim_db', 'username', 'string', { notes: 'default: default account name' }),
  key('database.apim_db', 'password', 'string', { secret: true }),
  key('database.apim_db', 'validationQuery', 'string', { default: 'SELECT 1', notes: 'apim_db only.' }),
  key('database.apim_db', 'pool_options.maxActive', 'integer', { default: 50, notes: 'catalog type string; max active connections.' }),
  key('database.apim_db', 'pool_options.maxWait', 'duration', { default: 60000, notes: 'catalog type string; ms to wait for a free connection.' }),
  key('database.apim_db', 'pool_options.testOnBorrow', 'boolean', { default: true, notes: 'catalog type string, takes true/false' }),
  key('database.apim_db', 'pool_options.validationInterval', 'duration', { default: 30000, notes: 'catalog type string; ms.' }),
  key('database.apim_db', 'pool_options.defaultAutoCommit', 'boolean', { default: true, notes: 'catalog type string, takes true/false' }),

  // [database.shared_db]
  key('database.shared_db', 'type', 'string', { default: 'h2', allowed: ['mysql', 'h2', 'mssql', 'postgre', 'oracle', 'db2'] }),
  key('database.shared_db', 'url', 'string', { notes: 'default: embedded database URL; required for h2.' }),
  key('database.shared_db', 'username', 'string', { notes: 'default: default account name' }),
  key('database.shared_db', 'password', 'string', { secret: true }),
] as const;
