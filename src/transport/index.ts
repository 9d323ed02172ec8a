export * from './memory.js';
export * from './sse/index.js';
export * from './stdio-client.js';
export * from './stdio-env.js';
export * from './stdio-framing.js';
export * from './stdio-server.js';
export * from './streamable/index.js';
