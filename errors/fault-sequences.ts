/**
 * The shipped fault sequences of seed 000 ("Fault sequences"), by role: the sequence an error names is the
 * one that renders it (mediation/fault.ts), with `fault` as the fallback.
 */
export const FaultSequence = {
  FAULT: 'fault',
  MAIN: 'main',
  AUTH_FAILURE: '_auth_failure_handler_',
  PRODUCTION_KEY_ERROR: '_production_key_error_',
  SANDBOX_KEY_ERROR: '_sandbox_key_error_',
  THROTTLE_OUT: '_throttle_out_handler_',
  TOKEN_FAULT: '_token_fault_',
  RESOURCE_MISMATCH: '_resource_mismatch_handler_',
  CORS_REQUEST: '_cors_request_handler_',
  THREAT_FAULT: '_threat_fault_',
  WS_DISPATCH: 'dispatchSeq',
  WS_OUT_DISPATCH: 'outDispatchSeq',
} as const;

export type FaultSequenceName = (typeof FaultSequence)[keyof typeof FaultSequence];

export const SHIPPED_SEQUENCE_NAMES: readonly FaultSequenceName[] = Object.values(FaultSequence);
