export * from '../../client/sse/sse-client-connection.js';
export * from '../../client/sse/sse-client-errors.js';
export * from './legacy-sse-handler.js';
export * from './sse-server-connection.js';
