// `mcpwire/host`: serving MCP servers mcpwire did not define, from code: any stdio server command, or a remote
// server, as a `Server` to put on any transport (what `mcpwire serve -- CMD` and `mcpwire connect URL` run).
export { type Bridge, type BridgeOptions, bridgeServer, type RemoteServer } from './bridge-server.js';
