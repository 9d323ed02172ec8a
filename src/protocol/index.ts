export { type CheckedAnswer, checkClientAnswer } from './client-answers.js';
export * from './envelope.js';
export * from './header-annotations.js';
export * from './mcp-headers.js';
export * from './modern-types.js';
export * from './tasks.js';
export * from './types.js';
export * from './validate.js';
export * from './versions.js';
