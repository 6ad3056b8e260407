/** The API's numeric error codes (api-spec "Errors", service contract section 3). */
export const ErrorCode = {
  validation: 4000,
  rateLimited: 4001,
  blacklisted: 4002,
  unauthorized: 4010,
  planRequired: 4030,
  quotaExceeded: 4031,
  notFound: 4040,
  conflict: 4090,
  internal: 5000,
  notImplemented: 5010,
  overloaded: 5003,
  sendFailed: 10001,
  statusUnresolved: 10002,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The text a failed message carries when its transport gave no better one. */
export const DELIVERY_ERROR_MESSAGES: Record<number, string> = {
  [ErrorCode.sendFailed]: 'Message failed to send',
  [ErrorCode.statusUnresolved]: 'Failed to resolve message status',
};
