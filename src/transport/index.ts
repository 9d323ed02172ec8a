// Node: the transports find `@opentelemetry/api` where it is installed (see src/telemetry/node.ts).
import '../telemetry/node.js';

export type { NodeListener } from '../http/node-adapter.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay, retryPolicy } from '../session/retry-policy.js';
export * from './connect-stdio.js';
export * from './connect-url.js';
export * from './memory.js';
export * from './oauth/index.js';
export * from './sse/index.js';
export * from './stdio-client.js';
export * from './stdio-env.js';
export * from './stdio-framing.js';
export * from './stdio-serve.js';
export * from './stdio-server.js';
export * from './streamable/index.js';
