import { UsageError } from './usage-error.js';

/** The bounds `mcpwire serve` sets on its HTTP endpoints, each left to the handlers' default when not given. */
export interface ServeLimits {
  /** `--max-body SIZE`: the largest request body (StreamableHTTPOptions.maxBodyBytes, and the HTTP+SSE one's). */
  readonly maxBodyBytes?: number;
  /** `--session-idle-timeout MS`: a session unused this long is closed; 0 never. */
  readonly sessionIdleTimeoutMs?: number;
  /** `--max-sessions N`: sessions each endpoint holds at most. */
  readonly maxSessions?: number;
}

const UNITS: Readonly<Record<string, number>> = { '': 1, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
/** A body is read into memory whole: no bound above this. */
const MAX_BODY_LIMIT = 1024 ** 3;

/** A whole number of at least `min`, or a usage error naming the flag. */
export function wholeNumber(flag: string, text: string, min: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min)
    throw new UsageError(`${flag} takes a whole number of at least ${min}, not "${text}"`);
  return n;
}

/** `4194304`, `512KiB`, `16MiB` or `1GiB` as bytes: at least 1 KiB (less would refuse a plain initialize), at most 1 GiB. */
function size(flag: string, text: string): number {
  const match = /^(\d+)\s*(B|KiB|MiB|GiB)?$/.exec(text);
  const bytes = match === null ? Number.NaN : Number(match[1]) * UNITS[match[2] ?? ''];
  if (!Number.isSafeInteger(bytes) || bytes < 1024 || bytes > MAX_BODY_LIMIT) {
    throw new UsageError(
      `${flag} takes a size from 1KiB to 1GiB, in bytes or with KiB, MiB or GiB (16MiB), not "${text}"`,
    );
  }
  return bytes;
}

/**
 * The three flags as `serve` takes them. They bound HTTP endpoints, so `--stdio` takes none; `--stateless` has no
 * sessions to time out or count.
 */
export function parseServeLimits(
  flags: { 'max-body'?: string; 'session-idle-timeout'?: string; 'max-sessions'?: string },
  mode: { stdio: boolean; stateless: boolean },
): ServeLimits {
  const given = Object.entries(flags).filter(([, value]) => value !== undefined);
  if (mode.stdio && given.length > 0)
    throw new UsageError(
      `--${given[0][0]} bounds the HTTP endpoints; --stdio serves one client on this process's stdin`,
    );
  const sessions = given.find(([name]) => name !== 'max-body');
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
