#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { serve } from './serve.js';

const USAGE = `Usage: mcpwire <command> [options]

Commands:
  serve --stdio      Serve the demo MCP server on this process's stdin/stdout
                     (logs go to stderr)

Options:
  -h, --help         Show this help
  -v, --version      Show the version
`;

/** A mistake in how the command was called: exit 2 with the message and the usage. */
export class UsageError extends Error {}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (command === 'serve') {
    const { values } = parseArgs({
      args: rest,
      options: { stdio: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    return serve({ stdio: values.stdio ?? false });
  }
  throw new UsageError(`Unknown command "${command}"`);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`mcpwire: ${err.message}\n${usage ? `\n${USAGE}` : ''}`);
    process.exitCode = usage ? 2 : 1;
  },
);
