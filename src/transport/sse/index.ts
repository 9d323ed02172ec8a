export * from './client.js';
export * from './client-errors.js';
export * from './handler.js';
export * from './server-connection.js';
