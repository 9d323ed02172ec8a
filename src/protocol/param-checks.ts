import { isObject } from '../jsonrpc/parse.js';
import type { Params } from '../jsonrpc/types.js';
import { LOGGING_LEVELS, type LoggingLevel } from './types.js';

/*
 * The small checks every params guard is built from: each reports the first problem as a path relative to
 * the value it was given ('.name must be a string', ' must be an object'), so that a valid message is
 * checked without building a single string.
 */

export { isObject };

export type Problem = string | undefined;
export type ParamsCheck = (params: Params) => Problem;

/** Stands in for absent params: methods whose params are optional see an empty object. */
export const NO_PARAMS: Params = Object.freeze({});

export const LEVEL_LIST = LOGGING_LEVELS.map((level) => `"${level}"`).join(', ');

/**
 * A Problem as where and what: its path is made of names, indices and quoted keys (`keyPath`), so it ends at the
 * first space outside quotes.
 */
export function faultOf(problem: string): { at: string; problem: string } {
  let i = 0;
  for (; i < problem.length && problem[i] !== ' '; i++) {
    if (problem[i] !== '"') continue;
    // A quoted key: to its closing quote, over escaped characters.
    for (i++; i < problem.length && problem[i] !== '"'; i++) if (problem[i] === '\\') i++;
  }
  return { at: problem.slice(0, i), problem: problem.slice(i + 1) };
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A key as a step of a path: `.name` when it reads as an identifier, `["odd key"]` otherwise. */
export function keyPath(key: string): string {
  return IDENTIFIER.test(key) ? '.' + key : '[' + JSON.stringify(key) + ']';
}

/** A JSON-RPC id or a progress token, named by `key`: a string or a safe integer. */
export function idLike(key: string, v: unknown): Problem {
  if (typeof v === 'string' || Number.isSafeInteger(v)) return undefined;
  // Beyond 2^53 JSON.parse has rounded it: echoed in a progress notification, it would name another token.
  return Number.isInteger(v)
    ? '.' + key + ' must be a safe integer (at most 2^53-1 in magnitude) or a string'
    : '.' + key + ' must be a string or an integer';
}

export function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

export function isStringArray(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}

/** True when `v` is one of the spec's logging levels. */
export function isLoggingLevel(v: unknown): v is LoggingLevel {
  return typeof v === 'string' && LOGGING_LEVELS.includes(v as LoggingLevel);
}

// ---- Field helpers (the key is a literal at every call site; messages are built on failure only) ----

export function requiredString(o: Record<string, unknown>, key: string): Problem {
  return typeof o[key] === 'string' ? undefined : '.' + key + ' must be a string';
}

export function optionalString(o: Record<string, unknown>, key: string): Problem {
  const v = o[key];
  return v === undefined || typeof v === 'string' ? undefined : '.' + key + ' must be a string';
}

export function optionalNumber(o: Record<string, unknown>, key: string): Problem {
  const v = o[key];
  return v === undefined || isNumber(v) ? undefined : '.' + key + ' must be a number';
}

export function optionalBoolean(o: Record<string, unknown>, key: string): Problem {
  const v = o[key];
  return v === undefined || typeof v === 'boolean' ? undefined : '.' + key + ' must be a boolean';
}

export function optionalObject(o: Record<string, unknown>, key: string): Problem {
  const v = o[key];
  return v === undefined || isObject(v) ? undefined : '.' + key + ' must be an object';
}

export function optionalStringArray(o: Record<string, unknown>, key: string): Problem {
  const v = o[key];
  return v === undefined || isStringArray(v) ? undefined : '.' + key + ' must be an array of strings';
}

/** An optional `{ [key]: string }` such as prompt arguments. */
export function optionalStringMap(o: Record<string, unknown>, key: string): Problem {
  const map = o[key];
  if (map === undefined) return undefined;
  if (!isObject(map)) return '.' + key + ' must be an object';
  for (const name in map) {
    if (typeof map[name] !== 'string') return '.' + key + '.' + name + ' must be a string';
  }
  return undefined;
}

export function requestMeta(p: Params): Problem {
  const meta = p._meta;
  if (meta === undefined) return undefined;
  if (!isObject(meta)) return '._meta must be an object';
  const token = meta.progressToken;
  if (token === undefined) return undefined;
  const problem = idLike('progressToken', token);
  return problem === undefined ? undefined : '._meta' + problem;
}

export function notificationMeta(p: Params): Problem {
  return optionalObject(p, '_meta');
}

/** `clientInfo` / `serverInfo`. */
export function implementation(info: unknown): Problem {
  if (!isObject(info)) return ' must be an object';
  return requiredString(info, 'name') ?? requiredString(info, 'version');
}

// ---- Content ----

/** text, image and audio blocks, whose `type` the caller has already read. */
export function textOrMedia(block: Record<string, unknown>): Problem {
  if (block.type === 'text') return requiredString(block, 'text');
  return requiredString(block, 'data') ?? requiredString(block, 'mimeType');
}

/** A block of a tool result or prompt message. */
export function contentBlock(block: unknown): Problem {
  if (!isObject(block)) return ' must be an object';
  switch (block.type) {
    case 'text':
    case 'image':
    case 'audio':
      return textOrMedia(block);
    case 'resource_link':
      return requiredString(block, 'uri') ?? requiredString(block, 'name');
    case 'resource': {
      const resource = block.resource;
      if (!isObject(resource)) return '.resource must be an object';
      if (typeof resource.uri !== 'string') return '.resource.uri must be a string';
      if (typeof resource.text !== 'string' && typeof resource.blob !== 'string') {
        return '.resource must have a string "text" or "blob"';
      }
      return undefined;
    }
    default:
      return '.type must be "text", "image", "audio", "resource_link" or "resource"';
  }
}
