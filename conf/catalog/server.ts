import { key } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): the node itself.
 */

/** [server] and [super_admin]: the node, its role and its administrator account. */
export const SERVER = [
  // [server]
  key('server', 'hostname', 'string', { default: 'localhost', required: true, notes: 'Host name or IP of the node.' }),
  key('server', 'offset', 'integer', { default: 0, notes: 'Port offset added to every runtime port.' }),
  key('server', 'mode', 'string', { default: 'single', allowed: ['single', 'ha'] }),
  key('server', 'base_path', 'string', { notes: 'default: built from protocol, host and management port' }),
  key('server', 'server_role', 'string', {
    default: 'default', required: true,
    allowed: ['default', 'api-devportal', 'api-key-manager', 'api-publisher', 'gateway-worker', 'traffic-manager'],
  }),
  key('server', 'enableMTOM', 'boolean', { default: false }),
  key('server', 'enableSwA', 'boolean', { default: false, notes: 'Processes files attached to SOAP messages when true.' }),
  key('server', 'disable_shutdown_from_ui', 'boolean', { default: false }),
  key('server', 'disable_restart_from_ui', 'boolean', { default: false }),
  key('server', 'discard_empty_caches', 'boolean', { default: false }),

  // [super_admin]
  key('super_admin', 'username', 'string', { notes: 'default: built-in administrator name' }),
  key('super_admin', 'password', 'string', { secret: true }),
  key('super_admin', 'create_admin_account', 'boolean', { default: true }),
] as const;
