export { ServletServer, type ServletServerOptions, type ServletConnectorOptions, type ServletTlsOptions, type ServletAddresses, type ServletRequestLog } from './server.js';
export { ServletRequest, requireMediaType, readBody } from './request.js';
export { json, text, empty, type Reply } from './reply.js';
export { Router, type Handler, type RouteOptions } from './router.js';
export * from './errors.js';
export { servletFromConfig } from './from-config.js';
