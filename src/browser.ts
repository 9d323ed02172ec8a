// `mcpwire/browser`: the client for a web page (or any runtime with fetch, streams and Web Crypto): see
// src/client/portable.ts. Node programs import `mcpwire/client`, which adds stdio.
export * from './client/portable.js';
