import { ErrorCode } from './errors.js';
import { isId, type Parsed } from './parse.js';
import type { RequestId } from './types.js';

/*
 * A message too long to keep is dropped unread, but whose it is can still be told from its two ends: writers put
 * `id` first (`{"jsonrpc":"2.0","id":7,"method":…`) or last (`{"result":{…},"jsonrpc":"2.0","id":7}`), and the
 * member too long to keep sits between. Read from the true start forwards, or from the true end backwards, JSON
 * is never ambiguous (outside strings there are no quotes or backslashes), so each end's top-level members are
 * read until the cut; what lies past it is never guessed at.
 */

/** What the ends of a cut message say: its id, and whether it reads as an answer (a result or an error, no method). */
export interface MessageEnds {
  readonly id: RequestId | null;
  readonly answer: boolean;
}

/** Reads the top-level members at the start of `head` and at the end of `tail` (either may be empty). */
export function readMessageEnds(head: string, tail: string): MessageEnds {
  let id: RequestId | null = null;
  let method = false;
  let reply = false;
  const visit = (key: string, value: string | undefined): void => {
    if (key === 'method') method = true;
    else if (key === 'result' || key === 'error') reply = true;
    else if (key === 'id' && id === null && value !== undefined) id = idValue(value);
  };
  forwardMembers(head, visit);
  backwardMembers(tail, visit);
  return { id, answer: reply && !method };
}

/**
 * The invalid message to deliver for a line of `bytes` bytes over `limit`, its ends `head` and `tail`: a request
 * is answered with its id, and an answer fails the request it answers (`Parsed.invalidAnswer`).
 */
export function tooLong(head: string, tail: string, bytes: number, limit: number): Parsed {
  const { id, answer } = readMessageEnds(head, tail);
  const error = {
    code: ErrorCode.InvalidRequest,
    message: `Invalid request: message of ${bytes} bytes exceeds the limit of ${limit} bytes`,
  };
  if (!answer || id === null) return { kind: 'invalid', id, error };
  return {
    kind: 'invalid',
    id,
    error,
    invalidAnswer: `it is ${bytes} bytes long, over the limit of ${limit} bytes`,
  };
}

function idValue(text: string): RequestId | null {
  const value = json(text);
  return isId(value) ? value : null;
}

function jsonString(text: string): string | undefined {
  const value = json(text);
  return typeof value === 'string' ? value : undefined;
}

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A top-level member: its key, and its value's text (undefined when the value is cut off). */
type Visit = (key: string, value: string | undefined) => void;
const WS = ' \t\n\r';
const QUOTE = '"';
const BACKSLASH = '\\';

/** Visits each top-level member from the start of `s`, until the first one cut off (its key is visited). */
function forwardMembers(s: string, visit: Visit): void {
  let i = skipWs(s, 0);
  if (s[i] !== '{') return;
  for (;;) {
    const keyStart = skipWs(s, i + 1);
    if (s[keyStart] !== QUOTE) return;
    const keyEnd = stringEnd(s, keyStart);
    if (keyEnd < 0) return;
    const colon = skipWs(s, keyEnd);
    if (s[colon] !== ':') return;
    const start = skipWs(s, colon + 1);
    const end = valueEnd(s, start);
    const key = jsonString(s.slice(keyStart, keyEnd));
    if (key === undefined) return;
    visit(key, end < 0 ? undefined : s.slice(start, end));
    if (end < 0) return;
    i = skipWs(s, end);
    if (s[i] !== ',') return;
  }
}

/** Visits each whole top-level member from the end of `s` backwards, until the first one cut off. */
function backwardMembers(s: string, visit: Visit): void {
  let i = skipWsBack(s, s.length - 1);
  if (s[i] !== '}') return;
  for (;;) {
    const last = skipWsBack(s, i - 1);
    const start = valueStart(s, last);
    if (start < 0) return;
    const colon = skipWsBack(s, start - 1);
    if (s[colon] !== ':') return;
    const keyLast = skipWsBack(s, colon - 1);
    if (s[keyLast] !== QUOTE) return;
    const keyStart = stringStart(s, keyLast);
    if (keyStart < 0) return;
    const key = jsonString(s.slice(keyStart, keyLast + 1));
    if (key === undefined) return;
    visit(key, s.slice(start, last + 1));
    i = skipWsBack(s, keyStart - 1);
    if (s[i] !== ',') return;
  }
}

function skipWs(s: string, i: number): number {
  while (i < s.length && WS.includes(s[i])) i++;
  return i;
}

function skipWsBack(s: string, i: number): number {
  while (i >= 0 && WS.includes(s[i])) i--;
  return i;
}

/** The index after the string that opens at `i`, or -1 when `s` ends first. */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === BACKSLASH) j++;
    else if (s[j] === QUOTE) return j + 1;
  }
  return -1;
}

/**
 * The index of the quote that opens the string closed at `i`, or -1 when `s` begins first. A quote opens it when
 * an even number of backslashes stands before it; a run of them that reaches the start of `s` could be longer.
 */
function stringStart(s: string, i: number): number {
  for (let j = s.lastIndexOf(QUOTE, i - 1); j >= 0; j = s.lastIndexOf(QUOTE, j - 1)) {
    let k = j - 1;
    while (k >= 0 && s[k] === BACKSLASH) k--;
    if (k < 0) return -1;
    if ((j - 1 - k) % 2 === 0) return j;
  }
  return -1;
}

/** The index after the value that begins at `i`, or -1 when `s` ends first (a number may go on past it). */
function valueEnd(s: string, i: number): number {
  if (s[i] === QUOTE) return stringEnd(s, i);
  if (s[i] === '{' || s[i] === '[') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const c = s[j];
      if (c === QUOTE) {
        j = stringEnd(s, j) - 1;
        if (j < 0) return -1;
      } else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) return j + 1;
    }
    return -1;
  }
  for (let j = i; j < s.length; j++) if (s[j] === ',' || s[j] === '}' || WS.includes(s[j])) return j;
  return -1;
}

/** The index where the value that ends at `i` begins, or -1 when `s` begins first. */
function valueStart(s: string, i: number): number {
  if (i < 0) return -1;
  if (s[i] === QUOTE) return stringStart(s, i);
  if (s[i] === '}' || s[i] === ']') {
    let depth = 0;
    for (let j = i; j >= 0; j--) {
      const c = s[j];
      if (c === QUOTE) {
        j = stringStart(s, j);
        if (j < 0) return -1;
      } else if (c === '}' || c === ']') depth++;
      else if ((c === '{' || c === '[') && --depth === 0) return j;
    }
    return -1;
  }
  for (let j = i; j >= 0; j--) if (s[j] === ':' || WS.includes(s[j])) return j + 1;
  return -1;
}
