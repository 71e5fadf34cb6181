import { ApiHandlerError } from '../../errors/api-handler.js';
import type { ErrorEntry } from '../../errors/error-entry.js';

/**
 * Which of seed 000's throttle errors (900800 to 900807, errors/api-handler.ts) each level answers with;
 * message, status and sequence (_throttle_out_handler_) are the catalogue's.
 */
export type ThrottleLevel = 'api' | 'resource' | 'subscription' | 'burst' | 'application' | 'custom' | 'hard';

export const LEVEL_ERROR: Readonly<Record<ThrottleLevel | 'blocked', ErrorEntry>> = {
  /** The API-level (advanced) policy: as in the reference system, "Message throttled out". */
  api: ApiHandlerError.THROTTLED_OUT,
  resource: ApiHandlerError.RESOURCE_THROTTLED_OUT,
  burst: ApiHandlerError.BURST_THROTTLED_OUT,
  subscription: ApiHandlerError.SUBSCRIPTION_THROTTLED_OUT,
  application: ApiHandlerError.APPLICATION_THROTTLED_OUT,
  custom: ApiHandlerError.CUSTOM_POLICY_THROTTLED_OUT,
  /** backend_max_tps of the API: 503. */
  hard: ApiHandlerError.HARD_LIMIT_EXCEEDED,
  blocked: ApiHandlerError.BLOCKED,
};
