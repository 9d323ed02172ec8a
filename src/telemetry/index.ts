// Telemetry: what a Server or Client tells an operator (see README, "Observability").
export type { EventLogger } from './log-sink.js';
export type { OpenTelemetryOptions, TelemetryOptions } from './resolve.js';
