export * from './client.js';
export * from './client-errors.js';
export * from './handler.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
export * from './server-connection.js';
