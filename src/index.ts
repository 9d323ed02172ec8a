// The whole public API; `mcpwire/server`, `mcpwire/client` and `mcpwire/transport` offer the parts.
export * from './client/index.js';
export * from './jsonrpc/index.js';
export * from './protocol/index.js';
export * from './server/index.js';
export * from './session/index.js';
export * from './transport/index.js';
