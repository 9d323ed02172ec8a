// Node: the transports find `@opentelemetry/api` where it is installed (see src/telemetry/node.ts).
import './telemetry/node.js';

export * from './client/negotiation/connect-stdio.js';
export * from './client/negotiation/connect-url.js';
export * from './client/oauth/index.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay, retryPolicy } from './client/retry-policy.js';
export * from './client/stdio/stdio-client-connection.js';
export * from './client/stdio/stdio-env.js';
export type { NodeListener } from './http/node-adapter.js';
export * from './peer/memory.js';
export * from './peer/stdio-framing.js';
export * from './server/http/index.js';
export * from './server/sse/index.js';
export * from './server/stdio/serve-stdio.js';
export * from './server/stdio/stdio-server-connection.js';
