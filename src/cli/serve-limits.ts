import { LONGEST_TEXT_BYTES } from '../util/text-bound.js';
import { UsageError } from './usage-error.js';

/** The bounds `mcpwire serve` sets on its endpoints, each left to the default when not given. */
export interface ServeLimits {
  /**
   * `--max-body SIZE`: the largest request body (StreamableHTTPOptions.maxBodyBytes, and the HTTP+SSE one's), or
   * with `--stdio` the longest message line (`maxLineBytes`).
   */
  readonly maxBodyBytes?: number;
  /** `--session-idle-timeout MS`: a session unused this long is closed; 0 never. */
  readonly sessionIdleTimeoutMs?: number;
  /** `--max-sessions N`: sessions each endpoint holds at most. */
  readonly maxSessions?: number;
}

const UNITS: Readonly<Record<string, number>> = { '': 1, B: 1, KiB: 1024, MiB: 1024 ** 2 };
/** The largest whole MiB a body or line may be: each is decoded into one string (see `LONGEST_TEXT_BYTES`). */
const MAX_SIZE_MIB = Math.floor(LONGEST_TEXT_BYTES / 1024 ** 2);

/** A whole number of at least `min`, or a usage error naming the flag. */
export function wholeNumber(flag: string, text: string, min: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min)
    throw new UsageError(`${flag} takes a whole number of at least ${min}, not "${text}"`);
  return n;
}

/** `4194304`, `512KiB` or `16MiB` as bytes: at least 1 KiB (less would refuse a plain initialize), at most 511 MiB. */
function size(flag: string, text: string): number {
  const match = /^(\d+)\s*(B|KiB|MiB)?$/.exec(text);
  const bytes = match === null ? Number.NaN : Number(match[1]) * UNITS[match[2] ?? ''];
  if (!Number.isSafeInteger(bytes) || bytes < 1024 || bytes > MAX_SIZE_MIB * 1024 ** 2) {
    throw new UsageError(
      `${flag} takes a size from 1KiB to ${MAX_SIZE_MIB}MiB, in bytes or with KiB or MiB (16MiB), not "${text}"`,
    );
  }
  return bytes;
}

/**
 * The three flags as `serve` takes them. `--stdio` and `--stateless` take only `--max-body`: they have no
 * sessions to time out or count (`--stdio` serves one client for the life of the process).
 */
export function parseServeLimits(
  flags: { 'max-body'?: string; 'session-idle-timeout'?: string; 'max-sessions'?: string },
  mode: { stdio: boolean; stateless: boolean },
): ServeLimits {
  const sessions = Object.entries(flags).find(([name, value]) => value !== undefined && name !== 'max-body');
  if (mode.stdio && sessions !== undefined)
    throw new UsageError(
      `--${sessions[0]} bounds the HTTP endpoints' sessions; --stdio serves one client on this process's stdin`,
    );
  if (mode.stateless && sessions !== undefined)
    throw new UsageError(`--${sessions[0]} bounds sessions; --stateless has none`);
  const body = flags['max-body'];
  const idle = flags['session-idle-timeout'];
  const most = flags['max-sessions'];
  return {
    maxBodyBytes: body === undefined ? undefined : size('--max-body', body),
    sessionIdleTimeoutMs: idle === undefined ? undefined : wholeNumber('--session-idle-timeout', idle, 0),
    maxSessions: most === undefined ? undefined : wholeNumber('--max-sessions', most, 1),
  };
}
