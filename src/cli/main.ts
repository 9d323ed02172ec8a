#!/usr/bin/env node

import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { RedisAddress } from '../eventstore/redis-address.js';
import { parseRedisNode } from '../eventstore/redis-node.js';
import type { RateLimitOptions } from '../http/rate-limiter.js';
import { call } from './call.js';
import { parseCallArgs } from './call-args.js';
import { connect, parseConnectArgs } from './connect.js';
import { CALL_HELP, CONNECT_HELP, helpOf, MAIN_HELP, SERVE_HELP } from './help.js';
import { serve } from './serve.js';
import { parseServeAuth } from './serve-auth.js';
import { parseChild, splitCommand } from './serve-command.js';
import { parseServeLimits, wholeNumber } from './serve-limits.js';
import { LOG_FORMATS, type LogFormat } from './stderr-logger.js';
import { UsageError } from './usage-error.js';
import { parseWorkers } from './workers.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Where `serve` shares sessions: `--redis URL` or `--redis-cluster NODES`; UsageError for both, or a bad node. */
function parseRedis(url: string | undefined, nodes: string | undefined): RedisAddress | undefined {
  if (nodes === undefined) return url;
  if (url !== undefined) {
    throw new UsageError('--redis names one Redis server, --redis-cluster a Redis Cluster: give one of them');
  }
  const cluster = nodes.split(',').map((node) => node.trim());
  for (const node of cluster) {
    try {
      parseRedisNode(node);
    } catch (err) {
      throw new UsageError(`--redis-cluster takes nodes separated by commas: ${(err as Error).message}`);
    }
  }
  return { cluster };
}

/** `--rate-limit N` (requests per minute per caller) and `--max-in-flight N`, as the transports take them. */
function parseRateLimit(
  perMinute: string | undefined,
  inFlight: string | undefined,
): RateLimitOptions | undefined {
  if (perMinute === undefined && inFlight === undefined) return undefined;
  const count = (flag: string, text: string | undefined) =>
    text === undefined ? undefined : wholeNumber(flag, text, 1);
  return { requests: count('--rate-limit', perMinute), concurrent: count('--max-in-flight', inFlight) };
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help') {
    process.stdout.write(MAIN_HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === 'help') {
    const topic = rest[0];
    const page = topic === undefined ? MAIN_HELP : helpOf(topic);
    if (page === undefined)
      throw new UsageError(`No command "${topic}": the commands are serve, call and connect`);
    process.stdout.write(page);
    return 0;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (command === 'serve') {
    const { values, positionals, tokens } = parseArgs({
      args: rest,
      allowPositionals: true,
      tokens: true,
      options: {
        port: { type: 'string', default: '3000' },
        host: { type: 'string', default: '127.0.0.1' },
        stateless: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'no-legacy-sse': { type: 'boolean', default: false },
        'allowed-host': { type: 'string', multiple: true, default: [] },
        'allowed-origin': { type: 'string', multiple: true, default: [] },
        'cors-origin': { type: 'string', multiple: true, default: [] },
        stdio: { type: 'boolean', default: false },
        watch: { type: 'boolean', default: false },
        skills: { type: 'string' },
        redis: { type: 'string' },
        'redis-cluster': { type: 'string' },
        workers: { type: 'string' },
        'oauth-issuer': { type: 'string' },
        'oauth-jwks': { type: 'string' },
        'oauth-introspection': { type: 'string' },
        'oauth-scope': { type: 'string', multiple: true, default: [] },
        'oauth-resource': { type: 'string' },
        'oauth-dpop': { type: 'string' },
        'token-env': { type: 'string' },
        'log-format': { type: 'string' },
        'rate-limit': { type: 'string' },
        'max-in-flight': { type: 'string' },
        'max-body': { type: 'string' },
        'session-idle-timeout': { type: 'string' },
        'max-sessions': { type: 'string' },
        children: { type: 'string' },
        env: { type: 'string', multiple: true, default: [] },
        cwd: { type: 'string' },
        isolate: { type: 'boolean', default: false },
        'hide-tool': { type: 'string', multiple: true, default: [] },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(SERVE_HELP);
      return 0;
    }
    const { modules, command } = splitCommand(positionals, tokens);
    if (modules.length > 1 || (command !== undefined && modules.length > 0)) {
      throw new UsageError(
        `serve takes one module (mcpwire serve ./server.js) or a command after -- (mcpwire serve -- CMD ARGS…), not ${positionals.join(' ')}`,
      );
    }
    const child = parseChild(command, {
      children: values.children,
      env: values.env,
      cwd: values.cwd,
      isolate: values.isolate,
      hideTools: values['hide-tool'],
    });
    if (child !== undefined && values.watch) {
      throw new UsageError(
        '--watch reloads a module of yours; a command after -- is started again when it exits',
      );
    }
    if (values.watch && modules.length === 0) {
      throw new UsageError(
        '--watch reloads a module of yours when it changes: give its path (mcpwire serve --watch ./server.js)',
      );
    }
    if (values.watch && values.stdio) {
      throw new UsageError(
        "--watch reloads an HTTP server; over --stdio a reload would end the client's session",
      );
    }
    const skills = values.skills;
    if (skills !== undefined && !statSync(skills, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UsageError(
        `--skills takes a folder of skills (a folder per skill, each with a SKILL.md): ${skills} is not a folder`,
      );
    }
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`--port must be an integer from 0 to 65535, not "${values.port}"`);
    }
    const redis = parseRedis(values.redis, values['redis-cluster']);
    if (redis !== undefined && (values.stateless || values.stdio)) {
      throw new UsageError(
        `--redis${typeof redis === 'string' ? '' : '-cluster'} shares sessions between processes; ${values.stdio ? '--stdio serves one client' : '--stateless has no sessions'}`,
      );
    }
    const workers = parseWorkers(values.workers, {
      redis: redis !== undefined,
      stateless: values.stateless,
      stdio: values.stdio,
    });
    const rateLimit = parseRateLimit(values['rate-limit'], values['max-in-flight']);
    const limits = parseServeLimits(
      {
        'max-body': values['max-body'],
        'session-idle-timeout': values['session-idle-timeout'],
        'max-sessions': values['max-sessions'],
      },
      { stdio: values.stdio, stateless: values.stateless },
    );
    const logFormat = values['log-format'] as LogFormat | undefined;
    if (logFormat !== undefined && !LOG_FORMATS.includes(logFormat)) {
      throw new UsageError(`--log-format is json or text, not "${logFormat}"`);
    }
    return serve({
      module: modules[0],
      child,
      watch: values.watch,
      skills,
      logFormat,
      rateLimit,
      limits,
      ...parseServeAuth(values, values.stdio),
      redis,
      stdio: values.stdio,
      host: values.host,
      port,
      stateless: values.stateless,
      json: values.json,
      legacySse: !values['no-legacy-sse'],
      allowedHosts: values['allowed-host'],
      allowedOrigins: values['allowed-origin'],
      corsOrigins: values['cors-origin'],
      workers,
    });
  }
  if (command === 'connect') {
    const args = parseConnectArgs(rest);
    if (args === 'help') {
      process.stdout.write(CONNECT_HELP);
      return 0;
    }
    return connect(args, version());
  }
  if (command === 'call') {
    const args = parseCallArgs(rest);
    if (args === 'help') {
      process.stdout.write(CALL_HELP);
      return 0;
    }
    return call(args, version());
  }
  throw new UsageError(`Unknown command "${command}"`);
}

const argv = process.argv.slice(2);
main(argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    // The message says what to change; the whole page would bury it, so it names the page to read.
    const page = helpOf(argv[0]) === undefined ? 'mcpwire --help' : `mcpwire ${argv[0]} --help`;
    // What was started before the failure (a listening port, a child, a Redis connection) must not keep a command
    // that failed alive: it exits once the message is written.
    process.stderr.write(`mcpwire: ${err.message}\n${usage ? `Run \`${page}\` for the usage.\n` : ''}`, () =>
      process.exit(usage ? 2 : 1),
    );
  },
);
