export * from '../util/clock.js';
export * from '../util/manual-clock.js';
export * from './connection.js';
export * from './errors.js';
export * from './jsonrpc-peer.js';
