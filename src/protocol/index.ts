export * from './types.js';
export * from './validate.js';
export * from './versions.js';
export * from './envelope.js';
