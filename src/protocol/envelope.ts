import { isObject } from '../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types.js';
import { isLoggingLevel } from './validate.js';
import { FIRST_MODERN_VERSION } from './versions.js';

/*
 * The modern era's per-request `_meta` envelope (spec 2026-07-28, basic/index §_meta): every request says
 * which revision it speaks and what the client can do, because there is no handshake to remember it.
 */

/** The reserved `_meta` keys of the modern era, on requests (the first four) and on results/notifications. */
export const MetaKey = {
  ProtocolVersion: 'io.modelcontextprotocol/protocolVersion',
  ClientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  ClientInfo: 'io.modelcontextprotocol/clientInfo',
  LogLevel: 'io.modelcontextprotocol/logLevel',
  ServerInfo: 'io.modelcontextprotocol/serverInfo',
  SubscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** What a valid envelope tells the server about the one request that carries it. */
export interface Envelope {
  protocolVersion: string;
  /** `{}` when the client declares nothing; never inferred from earlier requests. */
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  /** Absent means the server must not send `notifications/message` for this request. */
  logLevel: LoggingLevel | undefined;
}

/**
 * Why an envelope was refused. `key` is the `_meta` key at fault (or `_meta` itself); the caller answers
 * -32602 (HTTP 400) with `message` and `data: { envelope: { key, problem } }`.
 */
export interface EnvelopeProblem {
  key: string;
  problem: 'missing' | 'invalid';
  message: string;
}

/** The revision whose envelope rules this file applies; named in every problem's message. */
const RULES_REVISION = FIRST_MODERN_VERSION;

/** The `_meta` object of `params`, or undefined when there is none to read. */
function metaOf(params: unknown): Record<string, unknown> | undefined {
  if (!isObject(params)) return undefined;
  const meta = params._meta;
  return isObject(meta) ? meta : undefined;
}

/**
 * The request's protocol-version claim, as sent: `undefined` only when `_meta` carries no
 * `io.modelcontextprotocol/protocolVersion` at all (a legacy request). Any other value, a non-string
 * included, marks the request as modern; `readEnvelope` then reports a non-string as invalid, so a broken
 * claim is refused as modern instead of falling back to legacy.
 */
export function envelopeClaim(params: unknown): unknown {
  return metaOf(params)?.[MetaKey.ProtocolVersion];
}

/**
 * Whether `message` belongs to the modern era: a request or notification whose `_meta` claims a protocol
 * version (`envelopeClaim`). Responses and claim-less messages are legacy.
 */
export function claimsModern(message: JsonRpcMessage): boolean {
  return 'method' in message && envelopeClaim(message.params) !== undefined;
}

/**
 * Reads and checks the envelope of a modern request. The result is an `Envelope`, or an `EnvelopeProblem`
 * (narrow with `'problem' in result`) naming the first key at fault. Unknown `_meta` keys and unknown
 * capability members are allowed; known members must have their types. Never throws; on success the
 * capability and client-info objects are the request's own, not copies.
 */
export function readEnvelope(params: unknown): Envelope | EnvelopeProblem {
  if (isObject(params) && params._meta !== undefined && !isObject(params._meta)) {
    return problem('_meta', 'invalid', 'must be an object');
  }
  const meta = metaOf(params) ?? {};

  const protocolVersion = meta[MetaKey.ProtocolVersion];
  if (protocolVersion === undefined) return problem(MetaKey.ProtocolVersion, 'missing');
  if (typeof protocolVersion !== 'string' || protocolVersion === '') {
    return problem(MetaKey.ProtocolVersion, 'invalid', 'must be a non-empty string');
  }

  const clientCapabilities = meta[MetaKey.ClientCapabilities];
  if (clientCapabilities === undefined) return problem(MetaKey.ClientCapabilities, 'missing');
  const capsDetail = capabilitiesProblem(clientCapabilities);
  if (capsDetail !== undefined) return problem(MetaKey.ClientCapabilities, 'invalid', capsDetail);

  const clientInfo = meta[MetaKey.ClientInfo];
  if (clientInfo !== undefined && !isImplementation(clientInfo)) {
    return problem(MetaKey.ClientInfo, 'invalid', 'must be an object with string name and version');
  }

  const logLevel = meta[MetaKey.LogLevel];
  if (logLevel !== undefined && !isLoggingLevel(logLevel)) {
    return problem(
      MetaKey.LogLevel,
      'invalid',
      'must be one of debug, info, notice, warning, error, critical, alert, emergency',
    );
  }

  return {
    protocolVersion,
    clientCapabilities: clientCapabilities as ClientCapabilities,
    clientInfo: clientInfo as Implementation | undefined,
    logLevel,
  };
}

function problem(key: string, kind: EnvelopeProblem['problem'], detail?: string): EnvelopeProblem {
  const tail = detail === undefined ? kind : kind + ' (' + detail + ')';
  return {
    key,
    problem: kind,
    message: `Invalid _meta envelope for protocol revision ${RULES_REVISION}: ${key}: ${tail}`,
  };
}

function isImplementation(v: unknown): v is Implementation {
  return isObject(v) && typeof v.name === 'string' && typeof v.version === 'string';
}

/** The first type error among the members the server reads to decide what it may ask of the client. */
function capabilitiesProblem(caps: unknown): string | undefined {
  if (!isObject(caps)) return 'must be an object';
  return (
    objectMember(caps, 'roots') ??
    objectMember(caps, 'sampling') ??
    objectMember(caps, 'elicitation') ??
    objectMember(caps, 'experimental') ??
    objectMember(caps, 'extensions') ??
    nestedObject(caps, 'sampling', 'context') ??
    nestedObject(caps, 'sampling', 'tools') ??
    nestedObject(caps, 'elicitation', 'form') ??
    nestedObject(caps, 'elicitation', 'url') ??
    objectValues(caps, 'experimental') ??
    objectValues(caps, 'extensions')
  );
}

function objectMember(o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  return v === undefined || isObject(v) ? undefined : '.' + key + ' must be an object';
}

/** `o[outer][inner]`, once `o[outer]` is known to be absent or an object. */
function nestedObject(o: Record<string, unknown>, outer: string, inner: string): string | undefined {
  const parent = o[outer] as Record<string, unknown> | undefined;
  if (parent === undefined) return undefined;
  const v = parent[inner];
  return v === undefined || isObject(v) ? undefined : '.' + outer + '.' + inner + ' must be an object';
}

/** Every value of the map `o[key]` (experimental, extensions) is a settings object. */
function objectValues(o: Record<string, unknown>, key: string): string | undefined {
  const map = o[key] as Record<string, unknown> | undefined;
  if (map === undefined) return undefined;
  for (const name in map) {
    if (Object.hasOwn(map, name) && !isObject(map[name])) {
      return '.' + key + '[' + JSON.stringify(name) + '] must be an object';
    }
  }
  return undefined;
}
