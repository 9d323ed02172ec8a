// `mcpwire`: the server's entry point and the client's together (`mcpwire/server`, `mcpwire/client`). The Redis
// pieces are in `mcpwire/cluster`, the demo server in `mcpwire/demo`.
export * from './client/index.js';
export * from './server/index.js';
