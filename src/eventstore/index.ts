export * from './errors.js';
export * from './event-id.js';
export * from './event-store.js';
export * from './memory-event-store.js';
export * from './store-unavailable-error.js';
