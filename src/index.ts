// The whole public API but Redis (`mcpwire/cluster`, which loads ioredis); `mcpwire/server`,
// `mcpwire/client`, `mcpwire/transport` and `mcpwire/eventstore` offer the parts.
export * from './client/index.js';
export * from './eventstore/index.js';
export * from './http/index.js';
export * from './jsonrpc/index.js';
export * from './peer/index.js';
export * from './protocol/index.js';
export * from './server/index.js';
export * from './tasks/index.js';
export * from './transport.js';
