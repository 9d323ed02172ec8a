import { ErrorCode } from './errors.js';
import type { JsonRpcErrorObject, JsonRpcMessage, RequestId } from './types.js';

/** The outcome of reading one JSON-RPC payload. */
export type Parsed =
  | { kind: 'message'; message: JsonRpcMessage }
  | { kind: 'batch'; messages: JsonRpcMessage[] }
  | {
      kind: 'invalid';
      id: RequestId | null;
      error: JsonRpcErrorObject;
      /**
       * Set when the message has no "method" and a readable id: it claims to answer that request of the reader's,
       * and this says why it is no answer (that request then fails rather than wait for one the peer thinks it gave).
       */
      invalidAnswer?: string;
    };

function invalid(id: RequestId | null, code: number, message: string): Parsed {
  return { kind: 'invalid', id, error: { code, message } };
}

/** An invalid message; one with no "method" and a readable id is an invalid answer to that request. */
function invalidMessage(value: unknown, problem: string): Parsed {
  const id = readableId(value);
  const error = { code: ErrorCode.InvalidRequest, message: `Invalid request: ${problem}` };
  if (id === null || !isObject(value) || 'method' in value) return { kind: 'invalid', id, error };
  return { kind: 'invalid', id, error, invalidAnswer: problem };
}

/**
 * Parses text into one classified JSON-RPC message, a batch, or the precise error to answer with
 * (-32700 for bad JSON, -32600 for a wrong shape). The text is parsed once; the checks read the
 * parsed object in place and allocate nothing for a valid message.
 */
export function parseMessage(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return invalid(null, ErrorCode.ParseError, `Parse error: ${(err as Error).message}`);
  }
  return classify(value);
}

/** Classifies an already-parsed value (for transports whose framing parsed the JSON). */
export function classify(value: unknown): Parsed {
  if (Array.isArray(value)) {
    if (value.length === 0) return invalid(null, ErrorCode.InvalidRequest, 'Invalid request: empty batch');
    const messages: JsonRpcMessage[] = [];
    for (const item of value) {
      const problem = shapeError(item);
      if (problem !== undefined) return invalidMessage(item, problem);
      messages.push(item as JsonRpcMessage);
    }
    return { kind: 'batch', messages };
  }
  const problem = shapeError(value);
  if (problem !== undefined) return invalidMessage(value, problem);
  return { kind: 'message', message: value as JsonRpcMessage };
}

/**
 * Only safe integers: JSON.parse has already rounded a larger integer (2^64 reads as 18446744073709552000,
 * 2^53 and 2^53+1 as one number), so its response could not carry the id the peer sent (JSON-RPC 2.0 §5).
 */
export function isId(v: unknown): v is RequestId {
  return typeof v === 'string' || Number.isSafeInteger(v);
}

const UNSAFE_ID =
  'a numeric "id" must be a safe integer (at most 2^53-1 in magnitude): a larger one loses ' +
  'digits when parsed, so no response could carry it back unchanged; send the id as a string';

/** Why an id that is not a string is refused: a rounded integer gets its own message. */
function idError(id: unknown, otherwise: string): string {
  return Number.isInteger(id) ? UNSAFE_ID : otherwise;
}

/** The id to answer an invalid message with, when one can be read from it. */
function readableId(value: unknown): RequestId | null {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as { id?: unknown }).id;
  return isId(id) ? id : null;
}

/** A JSON object: not null, not an array (`typeof` says 'object' for both). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Why `value` is not a JSON-RPC message MCP accepts, or undefined when it is one. */
function shapeError(value: unknown): string | undefined {
  if (!isObject(value)) return 'a JSON-RPC message must be an object';
  if (value.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  const hasId = 'id' in value;
  if ('method' in value) {
    if (typeof value.method !== 'string') return '"method" must be a string';
    if (hasId && !isId(value.id)) {
      return value.id === null
        ? '"id" must not be null'
        : idError(value.id, '"id" must be a string or an integer');
    }
    if ('params' in value && value.params !== undefined && !isObject(value.params)) {
      return '"params" must be an object';
    }
    if ('result' in value || 'error' in value) {
      return 'a request or notification must not carry "result" or "error"';
    }
    return undefined;
  }
  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  if (hasResult && hasError) return 'a response must not carry both "result" and "error"';
  if (hasResult) {
    if (!isId(value.id)) return idError(value.id, 'a response needs a string or integer "id"');
    if (!isObject(value.result)) return '"result" must be an object';
    return undefined;
  }
  if (hasError) {
    if (!hasId || (value.id !== null && !isId(value.id))) {
      return idError(value.id, 'an error response needs an "id" (string, integer or null)');
    }
    const error = value.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') {
      return '"error" must be an object with an integer "code" and a string "message"';
    }
    return undefined;
  }
  return 'a message needs "method", "result" or "error"';
}
