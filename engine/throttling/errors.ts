/**
 * The throttle codes of seed 000 (API handler error codes 900800 to 900807), with the status and texts a
 * throttled call is answered with through _throttle_out_handler_.
 */
export const ThrottleCode = {
  /** API-level (advanced) policy of the API. */
  API_LIMIT: 900800,
  /** backend_max_tps of the API: 503. */
  HARD_LIMIT: 900801,
  /** Resource-level (advanced) policy of the resource. */
  RESOURCE_LIMIT: 900802,
  APPLICATION_LIMIT: 900803,
  SUBSCRIPTION_LIMIT: 900804,
  BLOCKED: 900805,
  CUSTOM_LIMIT: 900806,
  /** Burst control (requests per second or minute) of the subscription policy. */
  BURST_LIMIT: 900807,
} as const;
export type ThrottleCode = (typeof ThrottleCode)[keyof typeof ThrottleCode];

/** Where a throttle key counts, for logs, events and the traffic manager's status. */
export type ThrottleLevel = 'api' | 'resource' | 'subscription' | 'burst' | 'application' | 'custom' | 'hard';

export const THROTTLE_SEQUENCE = '_throttle_out_handler_';

export interface ThrottleOut {
  readonly code: ThrottleCode;
  readonly status: number;
  readonly message: string;
  readonly description: string;
}

export const THROTTLE_OUT: Readonly<Record<ThrottleLevel | 'blocked', ThrottleOut>> = {
  api: { code: ThrottleCode.API_LIMIT, status: 429, message: 'Message throttled out',
    description: 'You have exceeded your quota: the API-level limit is reached' },
  hard: { code: ThrottleCode.HARD_LIMIT, status: 503, message: 'Hard limit exceeded',
    description: 'The API backend is at its hard throttle limit (backend_max_tps)' },
  resource: { code: ThrottleCode.RESOURCE_LIMIT, status: 429, message: 'Resource level throttle out',
    description: 'You have exceeded your quota: the resource-level limit is reached' },
  application: { code: ThrottleCode.APPLICATION_LIMIT, status: 429, message: 'Application level throttle out',
    description: 'You have exceeded your quota: the application-level limit is reached' },
  subscription: { code: ThrottleCode.SUBSCRIPTION_LIMIT, status: 429, message: 'Subscription level throttled out',
    description: 'You have exceeded your quota: the subscription policy limit is reached' },
  blocked: { code: ThrottleCode.BLOCKED, status: 429, message: 'Message blocked',
    description: 'You have been blocked from accessing the resource' },
  custom: { code: ThrottleCode.CUSTOM_LIMIT, status: 429, message: 'Custom policy throttled out',
    description: 'You have exceeded your quota: a custom throttling policy limit is reached' },
  burst: { code: ThrottleCode.BURST_LIMIT, status: 429, message: 'Message throttled out',
    description: 'You have exceeded your quota: the burst control limit of the subscription policy is reached' },
};
