import { ApiHandlerCode } from '../../mediation/api-handler-errors.js';

/**
 * Which of seed 000's throttle codes (900800 to 900807) each level answers with. Message, status and
 * sequence (_throttle_out_handler_) come from the one table of API handler errors
 * (mediation/api-handler-errors.ts); MessageContext.raise renders them.
 */
export type ThrottleLevel = 'api' | 'resource' | 'subscription' | 'burst' | 'application' | 'custom' | 'hard';

export const LEVEL_CODE: Readonly<Record<ThrottleLevel | 'blocked', number>> = {
  /** The API-level (advanced) policy: as in the reference system, "Message throttled out". */
  api: ApiHandlerCode.THROTTLED_OUT,
  resource: ApiHandlerCode.RESOURCE_THROTTLED_OUT,
  burst: ApiHandlerCode.BURST_THROTTLED_OUT,
  subscription: ApiHandlerCode.SUBSCRIPTION_THROTTLED_OUT,
  application: ApiHandlerCode.APPLICATION_THROTTLED_OUT,
  custom: ApiHandlerCode.CUSTOM_POLICY_THROTTLED_OUT,
  /** backend_max_tps of the API: 503. */
  hard: ApiHandlerCode.HARD_LIMIT_EXCEEDED,
  blocked: ApiHandlerCode.BLOCKED,
};
