export * from './clock.js';
export * from './connection.js';
export * from './errors.js';
export * from './manual-clock.js';
export * from './session.js';
