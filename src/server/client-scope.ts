import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';

/** Severity rank of each logging level (RFC 5424 order, least severe first). */
const SEVERITY: Readonly<Record<LoggingLevel, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** True when a message at `level` passes `threshold` (RFC 5424 order). */
export function atLeast(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return SEVERITY[level] >= SEVERITY[threshold];
}

/**
 * Who a handler is serving: what the caller declared, whichever era it speaks. A legacy `ServerSession` is
 * one (declared once by initialize, kept for the session); a modern request builds a `ModernScope` from its
 * `_meta`, valid for that request only (the spec forbids inferring capabilities from earlier requests).
 */
export interface ClientScope {
  readonly era: Era;
  /** The negotiated (legacy) or claimed (modern) revision; undefined before a legacy initialize. */
  readonly protocolVersion: string | undefined;
  /** What the client declared it supports; undefined before a legacy initialize. */
  readonly clientCapabilities: ClientCapabilities | undefined;
  readonly clientInfo: Implementation | undefined;
  /** The least severe level the client wants logged. */
  readonly logLevel: LoggingLevel | undefined;
  /** Whether a log message at `level` goes to this client (the server must declare logging too). */
  logs(level: LoggingLevel): boolean;
}

/**
 * The scope of one modern request, read from its `_meta` envelope. Without a log level the request gets no
 * log messages at all (spec 2026-07-28: `logLevel` replaces logging/setLevel, and its absence means none).
 */
export class ModernScope implements ClientScope {
  constructor(
    readonly protocolVersion: string,
    readonly clientCapabilities: ClientCapabilities,
    readonly clientInfo: Implementation | undefined,
    readonly logLevel: LoggingLevel | undefined,
    private readonly logging: boolean,
  ) {}

  get era(): 'modern' {
    return 'modern';
  }

  logs(level: LoggingLevel): boolean {
    const threshold = this.logLevel;
    return this.logging && threshold !== undefined && atLeast(level, threshold);
  }
}
