import { basename } from 'node:path';
import { Client } from '../client/client.js';
import type { ClientSession } from '../client/client-session.js';
import { connectStdio } from '../client/negotiation/connect-stdio.js';
import { connectUrl } from '../client/negotiation/connect-url.js';
import type { TaskRequestOptions } from '../client/task-types.js';
import { listSkills } from '../extensions/skills/skills-client.js';
import type { SubscriptionFilter } from '../protocol/modern-types.js';
import { type LoggingLevel, Method } from '../protocol/types.js';
import type { CallAction, CallArgs } from './call-args.js';
import { cliElicitation } from './call-elicitation.js';
import { type CliSignIn, cliSignIn } from './call-oauth.js';
import {
  formatCompletion,
  formatLog,
  formatNotification,
  formatPromptResult,
  formatPrompts,
  formatReadResult,
  formatResources,
  formatTemplates,
  formatToolResult,
  formatTools,
} from './call-output.js';
import { cliSampling } from './call-sampling.js';
import { formatSkills, skillFile } from './call-skills.js';
import { toolView } from './call-view.js';
import { givesAuthorization } from './header-args.js';
import { machineSignIn } from './machine-client.js';
import { OAuthTokenFile, signInFolder } from './oauth-token-file.js';
import { ProgressBar } from './progress-bar.js';
import { taskReporter } from './task-status.js';
import { canAsk, conversations, type Terminal } from './terminal.js';

/** Exit code after Ctrl-C, as shells report a process ended by SIGINT. */
const INTERRUPTED = 130;

/** What one action produced: the raw result (for --json), its human rendering, and whether it failed. */
interface Outcome {
  result: unknown;
  text: string;
  failed: boolean;
  /** Already written to stdout as it came (listen): nothing more to print. */
  streamed?: boolean;
}

/**
 * `mcpwire call`: connects to the server, performs one action, prints the result on stdout (as JSON
 * with `--json`), closes the session (DELETE for HTTP, the child's end for stdio) and resolves with
 * the exit code: 0, 1 when the call failed (a tool error result included), 130 after Ctrl-C. Failures
 * to connect or of the request reject, once the session is closed, with an error whose message names
 * the action. Log messages and the progress bar go to stderr.
 */
export async function call(args: CallArgs, clientVersion: string): Promise<number> {
  const bar = new ProgressBar(process.stderr);
  const terminal: Terminal = { input: process.stdin, output: process.stderr };
  // Sampling and elicitation ask one question at a time, in the order the server asked.
  const converse = conversations(terminal, bar);
  const client = new Client(
    { name: 'mcpwire-call', version: clientVersion },
    {
      era: args.era,
      // A person waits on this run: polling at the server's pace, bounded, is what they want.
      tasks: args.tasks,
      requestTimeoutMs: args.timeout,
      roots: args.roots?.map((uri) => ({ uri, name: basename(new URL(uri).pathname) || uri })),
      sampling: cliSampling(args.samplingReply, terminal, converse),
      elicitation: cliElicitation(args.elicitReply, terminal, converse, (line) => bar.print(line)),
      onerror: (err) => bar.print(`mcpwire: ${err.message}\n`),
    },
  );
  const interrupt = new AbortController();
  // The session tells the server which request this gives up: "tools/call cancelled: the user pressed Ctrl-C".
  const onSigint = () => interrupt.abort(new Error('the user pressed Ctrl-C'));
  process.once('SIGINT', onSigint);
  let signIn: CliSignIn | undefined;
  try {
    // A token given by hand is the person's choice; otherwise a server that wants OAuth gets a sign-in.
    if (args.machine !== undefined) signIn = machineSignIn(args.machine);
    else if (args.target.kind === 'url' && !givesAuthorization(args.headers)) {
      const say = (text: string) => bar.print(text);
      const saved = args.store ? new OAuthTokenFile(args.target.url, signInFolder(), say) : undefined;
      signIn = await cliSignIn(clientVersion, canAsk(terminal), say, saved);
    }
    let session: ClientSession;
    try {
      session = await open(client, args, interrupt.signal, signIn?.oauth.fetch);
    } catch (err) {
      if (interrupt.signal.aborted) return INTERRUPTED;
      throw new Error(`Could not connect to ${where(args)}: ${(err as Error).message}`, { cause: err });
    }
    session.on('log', (params) => bar.print(formatLog(params)));
    if (args.verbose) bar.print(`mcpwire: ${describeSession(session)}\n`);
    try {
      if (args.logLevel !== undefined) await setLogLevel(session, args.logLevel, bar, interrupt.signal);
      // A modern server logs only for requests that ask; a legacy one logs unasked. Ask, so both look alike.
      else if (session.era === 'modern' && session.serverCapabilities.logging !== undefined) {
        await session.setLoggingLevel('info');
      }
      const outcome = await perform(
        session,
        args.action,
        {
          signal: interrupt.signal,
          timeoutMs: args.timeout,
          onprogress: (progress) => bar.update(progress),
          ontask: taskReporter(bar, (taskId) => resumeCommand(args, taskId)),
        },
        args.json,
      );
      bar.clear();
      if (outcome.streamed) return interrupt.signal.aborted ? INTERRUPTED : 0;
      process.stdout.write(args.json ? `${JSON.stringify(outcome.result, null, 2)}\n` : outcome.text);
      if (outcome.failed) process.stderr.write(`mcpwire: ${describe(args.action)} reported an error\n`);
      return outcome.failed ? 1 : 0;
    } catch (err) {
      bar.clear();
      if (interrupt.signal.aborted) return INTERRUPTED;
      throw new Error(`${describe(args.action)} failed: ${(err as Error).message}`, { cause: err });
    } finally {
      await session.close();
    }
  } finally {
    process.off('SIGINT', onSigint);
    await signIn?.close();
  }
}

/** logging/setLevel before the action, when the server declares logging; said on stderr when it does not. */
async function setLogLevel(
  session: ClientSession,
  level: LoggingLevel,
  bar: ProgressBar,
  signal: AbortSignal,
): Promise<void> {
  if (session.serverCapabilities.logging === undefined) {
    bar.print('mcpwire: the server does not declare logging, so --log-level was not sent\n');
    return;
  }
  await session.setLoggingLevel(level, { signal });
}

function open(
  client: Client,
  args: CallArgs,
  signal: AbortSignal,
  fetch: typeof globalThis.fetch | undefined,
): Promise<ClientSession> {
  const target = args.target;
  if (target.kind === 'command') {
    // The child's stderr is the person's to read; its environment is the library's allow-list
    // (`-- env KEY=VALUE command…` passes more).
    return connectStdio(
      client,
      { command: target.command, args: target.args, stderr: 'inherit' },
      { signal, timeoutMs: args.timeout },
    );
  }
  return connectUrl(client, target.url, {
    transport: args.transport as 'auto' | 'http' | 'sse',
    headers: args.headers,
    fetch,
    signal,
    timeoutMs: args.timeout,
  });
}

async function perform(
  session: ClientSession,
  action: CallAction,
  options: TaskRequestOptions,
  json: boolean,
): Promise<Outcome> {
  switch (action.kind) {
    case 'tools': {
      const tools = await collect(session.tools(options));
      return { result: { tools }, text: formatTools(tools), failed: false };
    }
    case 'call': {
      const result = await session.callTool(action.name, action.args, options);
      return { result, text: formatToolResult(result), failed: result.isError === true };
    }
    case 'resources': {
      const resources = await collect(session.resources(options));
      return { result: { resources }, text: formatResources(resources), failed: false };
    }
    case 'read': {
      const result = await session.readResource(action.uri, options);
      return { result, text: formatReadResult(result), failed: false };
    }
    case 'templates': {
      const resourceTemplates = await collect(session.resourceTemplates(options));
      return { result: { resourceTemplates }, text: formatTemplates(resourceTemplates), failed: false };
    }
    case 'prompts': {
      const prompts = await collect(session.prompts(options));
      return { result: { prompts }, text: formatPrompts(prompts), failed: false };
    }
    case 'prompt': {
      const result = await session.getPrompt(action.name, action.args, options);
      return { result, text: formatPromptResult(result), failed: false };
    }
    case 'complete': {
      const context = action.context === undefined ? undefined : { arguments: action.context };
      const result = await session.complete(action.ref, action.argument, context, options);
      return { result, text: formatCompletion(result), failed: false };
    }
    case 'ping': {
      const started = performance.now();
      await session.ping(options);
      const ms = Math.round(performance.now() - started);
      return {
        result: {},
        text: `pong (${ms} ms; ${session.protocolVersion}, ${session.era} era)\n`,
        failed: false,
      };
    }
    case 'listen':
      return listen(session, action.filter, options.signal, json);
    case 'task': {
      const result = await session.tasks.resume(action.taskId, options);
      return { result, text: formatToolResult(result), failed: result.isError === true };
    }
    case 'view':
      return toolView(session, action.tool, action.file, options);
    case 'skills': {
      const skills = await listSkills(session, options);
      return { result: { skills }, text: formatSkills(skills), failed: false };
    }
    case 'skill':
      return skillFile(session, action.skill, action.file, options);
  }
}

/**
 * The listen action: says what the server agreed to send (on stderr), then prints each notification as it
 * arrives (a line, or a JSON line with --json) until Ctrl-C or the server ends it. A stream that broke and
 * was opened again is said on stderr: what it covers may have changed meanwhile.
 */
async function listen(
  session: ClientSession,
  filter: SubscriptionFilter,
  signal: AbortSignal | undefined,
  json: boolean,
): Promise<Outcome> {
  const open = await session.listen(filter, { signal });
  process.stderr.write(
    `mcpwire: ${formatNotification({ method: Method.SubscriptionsAcknowledged, params: { notifications: open.honoured } })}`,
  );
  for await (const event of open) {
    if (event.type === 'resync') {
      process.stderr.write(`mcpwire: ${event.reason}; what it covers may have changed meanwhile\n`);
    } else {
      const { method, params } = event.notification;
      process.stdout.write(
        json ? `${JSON.stringify(event.notification)}\n` : formatNotification({ method, params }),
      );
    }
  }
  const end = await open.ended;
  if (end.reason === 'failed') throw end.error;
  return { result: undefined, text: '', failed: false, streamed: true };
}

/** What --verbose says once connected: who answered, and in which era and version. */
function describeSession(session: ClientSession): string {
  const info = session.serverInfo;
  const server = info.name === '' ? 'the server' : `${info.name} ${info.version}`;
  return `connected to ${server}, protocol ${session.protocolVersion} (${session.era} era)`;
}

/** Every item of a paginated listing: --json prints them as one result, pages joined. */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function describe(action: CallAction): string {
  switch (action.kind) {
    case 'call':
      return `tool "${action.name}"`;
    case 'read':
      return `read ${action.uri}`;
    case 'prompt':
      return `prompt "${action.name}"`;
    case 'complete':
      return `completing "${action.argument.name}"`;
    case 'task':
      return `task ${action.taskId}`;
    default:
      return action.kind;
  }
}

/** The command line that follows a task again: this server, the same era and transport. */
function resumeCommand(args: CallArgs, taskId: string): string {
  const target = args.target;
  const options = [
    ...(args.era === 'auto' ? [] : ['--era', args.era]),
    ...(args.transport === 'auto' || args.transport === 'stdio' ? [] : ['--transport', args.transport]),
  ];
  const words =
    target.kind === 'url'
      ? ['mcpwire', 'call', target.url.href, ...options, 'task', taskId]
      : ['mcpwire', 'call', ...options, 'task', taskId, '--', target.command, ...target.args];
  return words.map(quoted).join(' ');
}

/** A word as a POSIX shell reads it back. */
function quoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function where(args: CallArgs): string {
  const target = args.target;
  return target.kind === 'url' ? target.url.href : [target.command, ...target.args].join(' ');
}
