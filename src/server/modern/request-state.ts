import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Clock, systemClock } from '../../util/clock.js';

/*
 * The sealed `requestState` of a modern multi-round-trip request (spec 2026-07-28, basic/patterns/mrtr):
 * the server hands state to the client with an `input_required` result and gets it back on the retry. The
 * client is untrusted, so the state is signed (HMAC-SHA256, with a key id so keys can rotate), bound to
 * the request it belongs to, and short-lived. It is signed, not encrypted: the client can read `p`.
 *
 * Wire shape: "s1." kid "." b64url(JSON{p, exp, b}) "." b64url(mac), where mac covers everything before
 * it and b is a keyed tag of the bind string, so the principal in it is never readable in the token.
 */

/** A signing key. `id` names it inside tokens (1–32 of A–Z a–z 0–9 _ -); `secret` is at least 32 bytes. */
export interface RequestStateKey {
  id: string;
  secret: string | Uint8Array;
}

export interface RequestStateOptions {
  /** How long a sealed state stays valid (default 300 000 ms). */
  ttlMs?: number;
  /** The longest token `seal` makes and `open` reads (default 64 KiB). */
  maxBytes?: number;
  clock?: Pick<Clock, 'now'>;
}

/** Why `open` refused a token; the wire answer for every one is the same -32602. */
export type RequestStateFailure = 'malformed' | 'unknown-key' | 'mac' | 'expired' | 'bind' | 'too-large';

export type OpenedRequestState = { ok: true; payload: unknown } | { ok: false; reason: RequestStateFailure };

const VERSION = 's1';
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const B64URL = /^[A-Za-z0-9_-]+$/;
const MIN_SECRET_BYTES = 32;
/** Domain separation: the same key signs tokens and tags bind strings, never the same input for both. */
const MAC_DOMAIN = 'mcp.requestState.seal\n';
const BIND_DOMAIN = 'mcp.requestState.bind\n';
const BIND_TAG_BYTES = 16;

/**
 * Seals and opens `requestState` tokens. The first key signs; every key verifies, so a key is rotated by
 * putting the new one first and keeping the old one second until its tokens have expired. Without keys,
 * one random key is made per process: fine for a single process, but several processes behind one
 * endpoint must share keys, or a retry that lands elsewhere is refused ('unknown-key').
 */
export class RequestStateSealer {
  #keys = new Map<string, Buffer>();
  #signer = '';
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #clock: Pick<Clock, 'now'>;

  /** Throws when a key is malformed, an id repeats, the list is empty, or an option is out of range. */
  constructor(keys: readonly RequestStateKey[] | undefined, options: RequestStateOptions = {}) {
    this.setKeys(
      keys ?? [{ id: 'p' + randomBytes(6).toString('hex'), secret: randomBytes(MIN_SECRET_BYTES) }],
    );
    this.#ttlMs = positive('ttlMs', options.ttlMs ?? 300_000);
    this.#maxBytes = positive('maxBytes', options.maxBytes ?? 64 * 1024);
    this.#clock = options.clock ?? systemClock;
  }

  /** How long a sealed state stays valid. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /**
   * Replaces the keys, as the constructor takes them (the first signs; all open), e.g. when a cluster's shared
   * keys rotate. Throws, leaving the keys as they were, when the list is not one the constructor accepts.
   */
  setKeys(list: readonly RequestStateKey[]): void {
    if (list.length === 0)
      throw new Error('RequestStateSealer: give at least one key, or none for a per-process key');
    const keys = new Map<string, Buffer>();
    for (const key of list) {
      if (typeof key.id !== 'string' || !KEY_ID.test(key.id)) {
        throw new Error(
          `RequestStateSealer: key id ${JSON.stringify(key.id)} must be 1-32 of A-Z a-z 0-9 _ -`,
        );
      }
      if (keys.has(key.id)) throw new Error(`RequestStateSealer: key id "${key.id}" is given twice`);
      const secret =
        typeof key.secret === 'string' ? Buffer.from(key.secret, 'utf8') : Buffer.from(key.secret);
      if (secret.length < MIN_SECRET_BYTES) {
        throw new Error(
          `RequestStateSealer: the secret of key "${key.id}" has ${secret.length} bytes; it needs at least 32`,
        );
      }
      keys.set(key.id, secret);
    }
    this.#keys = keys;
    this.#signer = list[0].id;
  }

  /**
   * A token carrying `payload` (JSON-serializable; JSON drops what it cannot hold, as JSON.stringify does)
   * that `open` accepts with the same `bind` until the TTL runs out. Throws when the token would be longer
   * than maxBytes or the payload cannot be serialized.
   */
  seal(payload: unknown, bind: string): string {
    const secret = this.#keys.get(this.#signer)!;
    let json: string;
    try {
      json = JSON.stringify({ p: payload, exp: this.#clock.now() + this.#ttlMs, b: bindTag(secret, bind) });
    } catch (e) {
      throw new TypeError(`requestState payload is not JSON-serializable: ${(e as Error).message}`);
    }
    const head = VERSION + '.' + this.#signer + '.' + Buffer.from(json, 'utf8').toString('base64url');
    const token = head + '.' + mac(secret, head);
    if (token.length > this.#maxBytes) {
      throw new Error(
        `requestState would be ${token.length} bytes, over the limit of ${this.#maxBytes}: ` +
          'carry less in it (a key into server storage) or raise maxBytes',
      );
    }
    return token;
  }

  /** The payload of a token sealed for `bind`, or why it is refused. Never throws, whatever `token` is. */
  open(token: unknown, bind: string): OpenedRequestState {
    if (typeof token !== 'string') return refused('malformed');
    if (token.length > this.#maxBytes) return refused('too-large');
    const parts = token.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION || !B64URL.test(parts[2]) || !B64URL.test(parts[3])) {
      return refused('malformed');
    }
    const secret = this.#keys.get(parts[1]);
    if (secret === undefined) return refused('unknown-key');
    const head = token.slice(0, token.length - parts[3].length - 1);
    // Strings, not decoded bytes: a lenient base64 decoder would let a changed last character verify.
    if (!sameText(parts[3], mac(secret, head))) return refused('mac');
    const body = parseBody(parts[2]);
    if (body === undefined) return refused('malformed');
    if (this.#clock.now() >= body.exp) return refused('expired');
    if (!sameText(body.b, bindTag(secret, bind))) return refused('bind');
    return { ok: true, payload: body.p };
  }
}

/**
 * The bind string of a request, for `seal` and `open`: the principal, method, target (tool or prompt name,
 * resource URI) and a SHA-256 of the arguments in canonical JSON (object keys sorted), so arguments equal
 * as JSON bind equally whatever their key order. Throws only on cyclic arguments.
 */
export function bindingOf(parts: {
  principal?: string;
  method: string;
  target?: string;
  args?: unknown;
}): string {
  return JSON.stringify([
    'mcp.bind.1',
    parts.principal ?? null,
    parts.method,
    parts.target ?? null,
    digestOf(parts.args),
  ]);
}

function positive(name: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new Error(`RequestStateSealer: ${name} must be a positive number, got ${value}`);
  }
  return value;
}

function refused(reason: RequestStateFailure): OpenedRequestState {
  return { ok: false, reason };
}

function mac(secret: Buffer, head: string): string {
  return createHmac('sha256', secret).update(MAC_DOMAIN).update(head).digest('base64url');
}

function bindTag(secret: Buffer, bind: string): string {
  return createHmac('sha256', secret)
    .update(BIND_DOMAIN)
    .update(bind)
    .digest()
    .subarray(0, BIND_TAG_BYTES)
    .toString('base64url');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The JSON body of a verified token; undefined if it is not the shape `seal` writes. */
function parseBody(encoded: string): { p: unknown; exp: number; b: string } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { p, exp, b } = body as Record<string, unknown>;
  return typeof exp === 'number' && typeof b === 'string' ? { p, exp, b } : undefined;
}

/**
 * SHA-256 (hex) of `value` as canonical JSON: object keys sorted by code unit, what JSON.stringify would
 * drop dropped. Iterative, so arguments nested deeper than the call stack still hash.
 */
function digestOf(value: unknown): string {
  const hash = createHash('sha256');
  // Pending work, popped last-first: text to write, a value to write, or an object to close.
  const work: ({ text: string } | { value: unknown } | { close: object })[] = [{ value }];
  const open = new Set<object>();
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    if ('text' in item) {
      hash.update(item.text);
      continue;
    }
    if ('close' in item) {
      open.delete(item.close);
      continue;
    }
    const v = item.value;
    if (typeof v !== 'object' || v === null) {
      hash.update(typeof v === 'bigint' ? v.toString() : (JSON.stringify(v) ?? 'null'));
      continue;
    }
    if (open.has(v)) throw new TypeError('bindingOf: the arguments are cyclic');
    open.add(v);
    work.push({ close: v });
    if (Array.isArray(v)) {
      hash.update('[');
      work.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        work.push({ value: v[i] });
        if (i > 0) work.push({ text: ',' });
      }
    } else {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o)
        .filter((k) => o[k] !== undefined && typeof o[k] !== 'function' && typeof o[k] !== 'symbol')
        .sort();
      hash.update('{');
      work.push({ text: '}' });
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push({ value: o[keys[i]] });
        work.push({ text: (i > 0 ? ',' : '') + JSON.stringify(keys[i]) + ':' });
      }
    }
  }
  return hash.digest('hex');
}
