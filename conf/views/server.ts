import type { Config } from '../config.js';

export type ServerRole = 'default' | 'api-devportal' | 'api-key-manager' | 'api-publisher' | 'gateway-worker' | 'traffic-manager';

/** What runs in this process, derived from server.server_role. */
export interface RoleSet {
  readonly role: ServerRole;
  readonly gateway: boolean;
  readonly keyManager: boolean;
  readonly trafficManager: boolean;
  /** Publisher, developer portal: the admin REST API, the event hub, gateway notification (docs/operations.md). */
  readonly controlPlane: boolean;
}

export function roles(config: Config): RoleSet {
  const role = config.get('server.server_role') as ServerRole;
  const all = role === 'default';
  const controlPlane = all || role === 'api-publisher' || role === 'api-devportal';
  return {
    role,
    gateway: all || role === 'gateway-worker',
    // The control plane hosts the resident key manager unless [sluice.control_plane] says otherwise.
    keyManager: all || role === 'api-key-manager' || (controlPlane && config.get('sluice.control_plane.resident_key_manager')),
    trafficManager: all || role === 'traffic-manager',
    controlPlane,
  };
}

/** Runtime ports with server.offset applied. */
export interface Ports {
  readonly offset: number;
  readonly passthruHttp: number;
  readonly passthruHttps: number;
  readonly servletHttps: number;
  readonly servletHttp: number;
  readonly binaryTcp: number;
  readonly binarySsl: number;
}

export function ports(config: Config): Ports {
  return {
    offset: config.get('server.offset'),
    passthruHttp: config.get('transport.passthru_http.listener.parameters.port'),
    passthruHttps: config.get('transport.passthru_https.listener.parameters.port'),
    servletHttps: config.get('transport.https.properties.port'),
    servletHttp: config.get('transport.http.properties.port'),
    binaryTcp: config.get('transport.receiver.tcpPort'),
    binarySsl: config.get('transport.receiver.sslPort'),
  };
}

export interface LogView {
  readonly level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  readonly format: 'text' | 'json';
  readonly file: string;
  readonly console: boolean;
}

export function logView(config: Config): LogView {
  return {
    level: config.get('sluice.log.level') as LogView['level'],
    format: config.get('sluice.log.format') as LogView['format'],
    file: config.home.resolve(config.get('sluice.log.file')),
    console: config.get('sluice.log.console'),
  };
}

export function hostname(config: Config): string {
  return config.get('server.hostname');
}
