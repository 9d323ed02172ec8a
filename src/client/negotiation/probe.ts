import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { Params } from '../../jsonrpc/types.js';
import { ConnectionClosedError, RequestCancelledError, RequestTimeoutError } from '../../peer/errors.js';
import type { DiscoverResult } from '../../protocol/modern-types.js';
import { isObject } from '../../protocol/param-checks.js';
import { Method } from '../../protocol/types.js';
import { eraOf } from '../../protocol/versions.js';
import type { Clock } from '../../util/clock.js';
import type { EraWire, ModernStart } from '../session-era.js';

/*
 * The dual-era client's probe (spec 2026-07-28, versioning §negotiation): a `server/discover` first. A discover
 * result, or an error only a modern server sends, means modern; anything else means legacy (`initialize`).
 * The rules here are shared by the probe over a connection (stdio, memory) and the one over HTTP.
 */

/** What a probe found: a modern server and how to speak to it, or a legacy one and what it answered. */
export type ProbeOutcome =
  | { readonly era: 'modern'; readonly start: ModernStart }
  | {
      readonly era: 'legacy';
      /** What came instead of a discover result or a modern error. */
      readonly answer: string;
      /** Over HTTP: nothing came within the probe's time (a legacy server refuses discover; this one said nothing). */
      readonly silent?: true;
    };

/** A discover result that overlaps `versions` (the client's, by preference), or why it is not one. */
export function readDiscover(result: unknown, versions: readonly string[]): ModernStart | string {
  const r = result as Partial<DiscoverResult> | undefined;
  if (typeof r !== 'object' || r === null || !Array.isArray(r.supportedVersions)) {
    return 'a result that is not a discover result (no supportedVersions)';
  }
  if (!isObject(r.capabilities)) {
    return 'a discover result without capabilities';
  }
  const offered = r.supportedVersions;
  const chosen = versions.find((v) => offered.includes(v));
  if (chosen === undefined) {
    return `a discover result listing ${JSON.stringify(offered)}, none of which this client speaks (${versions.join(', ')})`;
  }
  return { protocolVersion: chosen, discover: r as DiscoverResult };
}

/**
 * For a -32022 answer: the modern version to ask again with (the first of `versions` the server lists), or
 * undefined when it lists none.
 */
function correctedVersion(data: unknown, versions: readonly string[]): string | undefined {
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  if (!Array.isArray(supported)) return undefined;
  return versions.find((v) => supported.includes(v));
}

/** True when an error's `supported` list names only legacy versions: a server that wants initialize. */
function listsOnlyLegacy(data: unknown): boolean {
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  return (
    Array.isArray(supported) &&
    supported.length > 0 &&
    supported.every((v) => typeof v === 'string' && eraOf(v) === 'legacy')
  );
}

const MODERN_CODES: ReadonlySet<number> = new Set([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
]);

/**
 * True for an error only a modern server answers with: -32020, -32021, -32022, and -32601 when it came with
 * HTTP 404 (`status`; without one, as on stdio, -32601 is what a legacy server answers too). After one, the
 * legacy transports are never tried.
 */
export function isModernRefusal(code: unknown, status?: number): boolean {
  return MODERN_CODES.has(code as number) || (code === ErrorCode.MethodNotFound && status === 404);
}

/**
 * What an error answer to discover means, the same over every transport (`status` where there is one): ask
 * again with a version the server names (-32022, on the first attempt only), a modern server's refusal, or a
 * legacy server. An error whose `supported` list names only legacy versions is a server that wants initialize,
 * whatever its code.
 */
export function readDiscoverError(
  error: { code: number; data?: unknown },
  status: number | undefined,
  versions: readonly string[],
  attempt: number,
): { retryWith: string } | 'refused' | 'legacy' {
  if (listsOnlyLegacy(error.data)) return 'legacy';
  if (error.code === ErrorCode.UnsupportedProtocolVersion && attempt === 0) {
    const corrected = correctedVersion(error.data, versions);
    if (corrected !== undefined) return { retryWith: corrected };
  }
  return isModernRefusal(error.code, status) ? 'refused' : 'legacy';
}

/** How long the probe over a connection waits for discover, and when its silence means a legacy server. */
export interface ProbeBounds {
  /** The whole wait for an answer; undefined: the client's request timeout. */
  readonly timeoutMs: number | undefined;
  /**
   * How long discover may stay unanswered once the server has shown that it reads its input (it answered the
   * `ping` sent behind the discover) before the server is taken for a legacy one. Undefined: silence never
   * means legacy (a client of era 'modern', a transport that carries only that era), and no ping is sent.
   */
  readonly legacyAfterMs: number | undefined;
}

/**
 * The probe over a connection with no HTTP status to read (stdio, memory): `server/discover`, and behind it a
 * `ping` with the same envelope (which 2025 servers answer before initialize, and 2026 ones refuse: an answer
 * either way). A discover result means modern; so does -32022 naming a version this client speaks (asked
 * again with it, once). -32020 or -32021 mean a modern server that refused the probe itself: an error, never
 * a fallback. Any other answer means legacy, and so does no answer `legacyAfterMs` after the ping's: the rule
 * is not keyed to one error code, since legacy servers answer an unknown pre-initialize request in many ways,
 * some not at all. Silence is counted from the ping's answer, not from the start, so a server slow to start
 * (a package fetched, an image pulled) is not taken for a legacy one; a server that answers neither is, when
 * the whole timeout has passed.
 */
export async function probeConnection(
  wire: EraWire,
  envelope: (version: string) => Params,
  versions: readonly string[],
  bounds: ProbeBounds,
  clock: Clock,
  signal: AbortSignal | undefined,
): Promise<ProbeOutcome> {
  let alive: Promise<void> | undefined;
  let version = versions[0];
  for (let attempt = 0; ; attempt++) {
    // Aborted when discover has gone unanswered too long after a sign of life, or when this attempt ended.
    const silence = new AbortController();
    let timer: unknown;
    try {
      const discover = wire.issue(Method.ServerDiscover, envelope(version), {
        timeoutMs: bounds.timeoutMs,
        signal: signal === undefined ? silence.signal : AbortSignal.any([silence.signal, signal]),
      }).result;
      const legacyAfterMs = bounds.legacyAfterMs;
      if (legacyAfterMs !== undefined) {
        alive ??= answersPing(wire, envelope(version), bounds.timeoutMs, signal);
        void alive.then(() => {
          if (!silence.signal.aborted) timer = clock.setTimeout(() => silence.abort(), legacyAfterMs);
        });
      }
      const result = await discover;
      const start = readDiscover(result, versions);
      return typeof start === 'string' ? { era: 'legacy', answer: start } : { era: 'modern', start };
    } catch (err) {
      if (signal?.aborted || err instanceof ConnectionClosedError) throw err;
      if (silence.signal.aborted) {
        return { era: 'legacy', answer: `nothing within ${bounds.legacyAfterMs} ms of its answer to ping` };
      }
      if (!(err instanceof McpError)) return { era: 'legacy', answer: String(err) };
      const meaning = readDiscoverError(err, undefined, versions, attempt);
      if (typeof meaning === 'object') {
        version = meaning.retryWith;
        continue;
      }
      if (meaning === 'refused') {
        throw new McpError(
          err.code,
          `The server speaks 2026-07-28 or later but refused server/discover: ${err.message}`,
          err.data,
        );
      }
      return { era: 'legacy', answer: `${err.code} ${err.message}` };
    } finally {
      // The discover has settled (its abort listener is gone): this only stops a timer still to be set.
      silence.abort();
      if (timer !== undefined) clock.clearTimeout(timer);
    }
  }
}

/**
 * Resolves once the server answers a `ping` (a result or an error of its own): it is up and reading. Never
 * settles if it does not; the ping's own failures (timeout, close, abort) are the discover's to report. The
 * ping carries the discover's envelope: a dual-era server reads a message without one as the legacy era's,
 * which can set how it serves the rest of the connection (the official v2 SDK's stdio server then refuses the
 * modern session's elicitation), while a legacy server reads the envelope as `_meta` it may ignore.
 */
function answersPing(
  wire: EraWire,
  params: Params,
  timeoutMs: number | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve) => {
    wire.issue(Method.Ping, params, { timeoutMs, signal }).result.then(
      () => resolve(),
      (err) => {
        if (err instanceof McpError && !isLocalFailure(err)) resolve();
      },
    );
  });
}

function isLocalFailure(err: McpError): boolean {
  return (
    err instanceof RequestTimeoutError ||
    err instanceof RequestCancelledError ||
    err instanceof ConnectionClosedError
  );
}
