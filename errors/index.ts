/** The error catalogue: every code a client can get, by name (docs/errors.md is written from it). */
export { FaultSequence, SHIPPED_SEQUENCE_NAMES, type FaultSequenceName } from './fault-sequences.js';
export { faultOf, type ErrorEntry, type FaultExtra, type FaultInfo } from './error-entry.js';
export { ApiHandlerError, type ApiHandlerErrorName } from './api-handler.js';
export { TransportError, TRANSPORT_BASES, type TransportBase, type TransportErrorName } from './transport.js';
export { DoorError, type DoorErrorName } from './front-door.js';
export { GatewayError, type GatewayErrorName } from './gateway.js';
export { ALL_ERRORS, FAMILIES, errorByCode, errorKind, isThrottleCode, type ErrorKind } from './catalogue.js';
