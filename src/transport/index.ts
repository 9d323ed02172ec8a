export * from './connect-url.js';
export * from './memory.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay, retryPolicy } from './retry-policy.js';
export * from './sse/index.js';
export * from './stdio-client.js';
export * from './stdio-env.js';
export * from './stdio-framing.js';
export * from './stdio-server.js';
export * from './streamable/index.js';
