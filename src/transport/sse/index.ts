export * from './handler.js';
export * from './server-connection.js';
