import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { SubscriptionFilter } from '../protocol/modern-types.js';
import {
  type JsonObject,
  LOGGING_LEVELS,
  type LoggingLevel,
  type PromptReference,
  type ResourceTemplateReference,
} from '../protocol/types.js';
import type { ElicitReply } from './call-elicitation.js';
import type { FieldValue } from './form-field.js';
import { parseHeaders } from './header-args.js';
import { MACHINE_OPTIONS, type MachineClient, machineClient } from './machine-client.js';
import { UsageError } from './usage-error.js';

/** What `mcpwire call` asks the server. */
export type CallAction =
  | { kind: 'tools' | 'resources' | 'templates' | 'prompts' | 'ping' }
  | { kind: 'call'; name: string; args: JsonObject | undefined }
  | { kind: 'read'; uri: string }
  | { kind: 'prompt'; name: string; args: Record<string, string> | undefined }
  | {
      kind: 'complete';
      ref: PromptReference | ResourceTemplateReference;
      argument: { name: string; value: string };
      /** Arguments already chosen, which the server may narrow its suggestions by. */
      context: Record<string, string> | undefined;
    }
  /** Print the server's notifications as they come: the list changes and resource updates of `filter`. */
  | { kind: 'listen'; filter: SubscriptionFilter }
  /** Follow a task started earlier (by `call`) to its end and print its result. */
  | { kind: 'task'; taskId: string }
  /** The HTML of a tool's MCP Apps view, printed or written to `file`. */
  | { kind: 'view'; tool: string; file: string | undefined }
  /** The server's skills (SEP-2640). */
  | { kind: 'skills' }
  /** A skill's SKILL.md, or one file of it, checked against its entry. */
  | { kind: 'skill'; skill: string; file: string | undefined };

/** Where the server is: a URL, or a command to spawn and speak to over stdio. */
export type CallTarget = { kind: 'url'; url: URL } | { kind: 'command'; command: string; args: string[] };

export type CallTransport = 'auto' | 'http' | 'sse' | 'stdio';

/** Which protocol era to speak: `auto` finds what the server speaks, the others insist on one. */
export type CallEra = 'auto' | 'modern' | 'legacy';

/** A checked `mcpwire call` command line. */
export interface CallArgs {
  target: CallTarget;
  transport: CallTransport;
  era: CallEra;
  action: CallAction;
  headers: Record<string, string>;
  /** The `file://` URIs of `--roots`, or undefined when none were given (roots not declared). */
  roots: string[] | undefined;
  samplingReply: string | undefined;
  elicitReply: ElicitReply | undefined;
  /** Sent as logging/setLevel right after connecting; undefined leaves the server's default. */
  logLevel: LoggingLevel | undefined;
  json: boolean;
  timeout: number | undefined;
  /** Keep an OAuth sign-in for the next runs (false with `--no-store`: each run signs in again). */
  store: boolean;
  /** `--client-id`: get tokens as this machine client (its secret from MCPWIRE_CLIENT_SECRET), no sign-in. */
  machine: MachineClient | undefined;
  /** `--verbose`: say on stderr which server answered, in which era and version. */
  verbose: boolean;
  /** Declare tasks, so that a server may run a call as one (false with `--no-task`). */
  tasks: boolean;
}

const TRANSPORTS: readonly CallTransport[] = ['auto', 'http', 'sse', 'stdio'];
const ERAS: readonly CallEra[] = ['auto', 'modern', 'legacy'];
const ACTIONS = [
  'tools',
  'call',
  'resources',
  'read',
  'templates',
  'prompts',
  'prompt',
  'complete',
  'ping',
  'listen',
  'task',
  'view',
  'skills',
  'skill',
];
/** The options that say what `listen` listens for. */
type ListenFlags = { tools: boolean; prompts: boolean; resources: boolean; resource: string[] };

/**
 * Parses the arguments after `mcpwire call`, or returns 'help'. Throws UsageError with a message that
 * says what to change. The grammar:
 *   mcpwire call [options] <url> <action> [action args]
 *   mcpwire call [options] <action> [action args] -- <command> [command args]
 * Everything after `--` is the server command. Options go anywhere before it; `--roots` takes one path
 * and is repeated for more.
 */
export function parseCallArgs(argv: readonly string[], cwd: string = process.cwd()): CallArgs | 'help' {
  const split = argv.indexOf('--');
  const ours = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? undefined : argv.slice(split + 1);
  const { values, positionals, tokens } = parseArgs({
    args: ours,
    options: {
      transport: { type: 'string' },
      era: { type: 'string', default: 'auto' },
      tools: { type: 'boolean', default: false },
      prompts: { type: 'boolean', default: false },
      resources: { type: 'boolean', default: false },
      resource: { type: 'string', multiple: true, default: [] },
      header: { type: 'string', multiple: true, default: [] },
      roots: { type: 'string', multiple: true },
      'sampling-reply': { type: 'string' },
      'elicit-reply': { type: 'string' },
      'log-level': { type: 'string' },
      json: { type: 'boolean', default: false },
      timeout: { type: 'string' },
      'no-store': { type: 'boolean', default: false },
      ...MACHINE_OPTIONS,
      'no-task': { type: 'boolean', default: false },
      verbose: { type: 'boolean', short: 'v', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
  if (values.help) return 'help';

  let target: CallTarget;
  let rest = positionals;
  if (command !== undefined) {
    if (command.length === 0)
      throw new UsageError('`--` must be followed by the command that starts the server');
    target = { kind: 'command', command: command[0], args: command.slice(1) };
  } else {
    if (positionals.length === 0) throw new UsageError('call needs a server: a URL, or `-- command args…`');
    target = { kind: 'url', url: parseUrl(positionals[0]) };
    rest = positionals.slice(1);
  }

  const transport = (values.transport ?? (target.kind === 'command' ? 'stdio' : 'auto')) as CallTransport;
  if (!TRANSPORTS.includes(transport)) {
    throw new UsageError(`--transport must be one of ${TRANSPORTS.join(', ')}, not "${values.transport}"`);
  }
  if ((transport === 'stdio') !== (target.kind === 'command')) {
    throw new UsageError(
      transport === 'stdio'
        ? '--transport stdio needs the server command after `--`, e.g. `mcpwire call tools -- node server.js`'
        : `--transport ${transport} needs a URL; a command after \`--\` runs over stdio`,
    );
  }

  const era = values.era as CallEra;
  if (!ERAS.includes(era)) {
    throw new UsageError(`--era must be one of ${ERAS.join(', ')}, not "${values.era}"`);
  }
  if (era === 'modern' && transport === 'sse') {
    throw new UsageError('--era modern cannot go with --transport sse: HTTP+SSE carries only the legacy era');
  }

  const action = withRootsHint(() => parseAction(rest, values), rest, afterRoots(tokens));
  if (action.kind === 'task' && values['no-task']) {
    throw new UsageError('--no-task refuses tasks, and the task action follows one: give one of them');
  }
  return {
    target,
    transport,
    era,
    action,
    headers: parseHeaders(values.header),
    roots: values.roots?.map((path) => pathToFileURL(resolve(cwd, path)).href),
    samplingReply: values['sampling-reply'],
    elicitReply: values['elicit-reply'] === undefined ? undefined : parseElicitReply(values['elicit-reply']),
    logLevel: values['log-level'] === undefined ? undefined : parseLogLevel(values['log-level']),
    json: values.json,
    timeout: values.timeout === undefined ? undefined : parseTimeout(values.timeout),
    store: !values['no-store'],
    machine: machineClient(values, target, parseHeaders(values.header)),
    verbose: values.verbose,
    tasks: !values['no-task'],
  };
}

/**
 * An action that does not parse, with a word right after a `--roots PATH` among its arguments, was likely
 * meant as a second root (as `--roots` took several paths once): the error says so.
 */
function withRootsHint(
  parse: () => CallAction,
  words: readonly string[],
  afterRoots: Set<string>,
): CallAction {
  try {
    return parse();
  } catch (err) {
    const stray = words.find((word) => afterRoots.has(word));
    if (!(err instanceof UsageError) || stray === undefined) throw err;
    throw new UsageError(
      `${err.message}. If "${stray}" is a root: --roots takes one path, repeat it for more (--roots A --roots B)`,
    );
  }
}

/** The words that come right after a `--roots PATH`. */
function afterRoots(tokens: ReturnType<typeof parseArgs>['tokens']): Set<string> {
  const words = new Set<string>();
  tokens?.forEach((token, i) => {
    const next = tokens[i + 1];
    if (token.kind === 'option' && token.name === 'roots' && next?.kind === 'positional')
      words.add(next.value);
  });
  return words;
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      ACTIONS.includes(text)
        ? `"${text}" is an action; give the server first: a URL, or put \`-- command args…\` at the end`
        : `"${text}" is not a URL; give an http:// or https:// URL, or \`-- command args…\` at the end`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`The server URL must be http:// or https://, not ${url.protocol}//`);
  }
  return url;
}

function parseAction(words: readonly string[], flags: ListenFlags): CallAction {
  const [kind, ...args] = words;
  if (kind === undefined) throw new UsageError(`call needs an action: one of ${ACTIONS.join(', ')}`);
  if (kind !== 'listen') {
    const given = listenFlagsGiven(flags);
    if (given.length > 0) {
      const example = given[0] === '--resource' ? '--resource URI' : given[0];
      throw new UsageError(`${given[0]} goes with the listen action: \`mcpwire call URL listen ${example}\``);
    }
  }
  const arity = (min: number, max: number, shape: string) => {
    if (args.length < min || args.length > max) {
      throw new UsageError(
        args.length < min
          ? `${kind} needs ${shape}`
          : `Unexpected argument "${args[max]}" after ${[kind, ...args.slice(0, max)].join(' ')}`,
      );
    }
  };
  switch (kind) {
    case 'tools':
    case 'resources':
    case 'templates':
    case 'prompts':
    case 'ping':
      arity(0, 0, '');
      return { kind };
    case 'read':
      arity(1, 1, 'a resource URI: read URI');
      return { kind, uri: args[0] };
    case 'call':
      arity(1, 2, 'a tool name: call NAME [JSON]');
      return { kind, name: args[0], args: jsonObject(args[1], `the arguments of tool "${args[0]}"`) };
    case 'prompt': {
      arity(1, 2, 'a prompt name: prompt NAME [JSON]');
      const what = `the arguments of prompt "${args[0]}"`;
      return { kind, name: args[0], args: stringValues(jsonObject(args[1], what), what) };
    }
    case 'complete': {
      arity(2, 4, 'what to complete: complete prompt:NAME|URI_TEMPLATE ARGUMENT [VALUE] [JSON]');
      const [target, name, value = '', context] = args;
      const what = `the arguments already chosen for ${target}`;
      return {
        kind,
        // `prompt:NAME` names a prompt; anything else is a resource template (or a URI).
        ref: target.startsWith('prompt:')
          ? { type: 'ref/prompt', name: target.slice('prompt:'.length) }
          : { type: 'ref/resource', uri: target },
        argument: { name, value },
        context: stringValues(jsonObject(context, what), what),
      };
    }
    case 'listen':
      arity(0, 0, '');
      return { kind, filter: listenFilter(flags) };
    case 'task':
      arity(1, 1, 'the id of a task: task ID (mcpwire prints it when a call runs as one)');
      return { kind, taskId: args[0] };
    case 'view':
      arity(1, 2, 'a tool name: view TOOL [FILE]');
      return { kind, tool: args[0], file: args[1] };
    case 'skills':
      arity(0, 0, '');
      return { kind };
    case 'skill':
      arity(1, 2, 'a skill: skill NAME|URI [FILE]');
      return { kind, skill: args[0], file: args[1] };
    default:
      throw new UsageError(`Unknown action "${kind}"; the actions are ${ACTIONS.join(', ')}`);
  }
}

/** What `listen` asks for: what its flags name, or every list change when none is given. */
function listenFilter(flags: ListenFlags): SubscriptionFilter {
  if (listenFlagsGiven(flags).length === 0) {
    return { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };
  }
  const filter: SubscriptionFilter = {};
  if (flags.tools) filter.toolsListChanged = true;
  if (flags.prompts) filter.promptsListChanged = true;
  if (flags.resources) filter.resourcesListChanged = true;
  if (flags.resource.length > 0) filter.resourceSubscriptions = flags.resource;
  return filter;
}

function listenFlagsGiven(flags: ListenFlags): string[] {
  return [
    ...(flags.tools ? ['--tools'] : []),
    ...(flags.prompts ? ['--prompts'] : []),
    ...(flags.resources ? ['--resources'] : []),
    ...(flags.resource.length > 0 ? ['--resource'] : []),
  ];
}

/** Parses a JSON object argument; the error names the argument, the text and JSON.parse's reason. */
function jsonObject(text: string | undefined, what: string): JsonObject | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${what} are not valid JSON (${text}): ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new UsageError(`${what} must be a JSON object such as '{"key":"value"}', not ${kind}`);
  }
  return value as JsonObject;
}

/** Prompt arguments are strings (spec); anything else is refused here, before it reaches the server. */
function stringValues(args: JsonObject | undefined, what: string): Record<string, string> | undefined {
  if (args === undefined) return undefined;
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== 'string') {
      throw new UsageError(`${what} must all be strings: "${key}" is ${JSON.stringify(value)}`);
    }
  }
  return args as Record<string, string>;
}

/** `accept`, `decline`, `cancel`, or the values of an accepted form as one JSON object. */
function parseElicitReply(text: string): ElicitReply {
  if (text === 'accept' || text === 'decline' || text === 'cancel') return { action: text };
  if (!text.trimStart().startsWith('{')) {
    throw new UsageError(
      `--elicit-reply takes accept, decline, cancel, or the form's values as a JSON object such as '{"name":"Ada"}', not "${text}"`,
    );
  }
  const content = jsonObject(text, 'the values of --elicit-reply')!;
  for (const [key, value] of Object.entries(content)) {
    const ok =
      ['string', 'number', 'boolean'].includes(typeof value) ||
      (Array.isArray(value) && value.every((v) => typeof v === 'string'));
    if (!ok) {
      throw new UsageError(
        `The values of --elicit-reply must be strings, numbers, booleans or arrays of strings: "${key}" is ${JSON.stringify(value)}`,
      );
    }
  }
  return { action: 'accept', content: content as Record<string, FieldValue> };
}

function parseLogLevel(text: string): LoggingLevel {
  if (!LOGGING_LEVELS.includes(text as LoggingLevel)) {
    throw new UsageError(`--log-level must be one of ${LOGGING_LEVELS.join(', ')}, not "${text}"`);
  }
  return text as LoggingLevel;
}

function parseTimeout(text: string): number {
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new UsageError(`--timeout takes a positive number of milliseconds, not "${text}"`);
  }
  return ms;
}
