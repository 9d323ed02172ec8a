export type { EventLogger, OpenTelemetryOptions, TelemetryOptions } from '../telemetry/index.js';
export {
  Client,
  type ClientConnectOptions,
  type ClientOptions,
  type FormElicitationHandler,
  type SamplingHandler,
  type UrlElicitationHandler,
} from './client.js';
export { type ClientContext, ClientSession, type ClientSessionEvents } from './client-session.js';
export { applyElicitationDefaults } from './elicitation-defaults.js';
export type { Listener } from './events.js';
