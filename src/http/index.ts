export * from './exchange.js';
export * from './guards.js';
export * from './json-error.js';
export * from './node-adapter.js';
export * from './protected-resource.js';
export * from './sse-event.js';
export * from './sse-writer.js';
export * from './web-adapter.js';
