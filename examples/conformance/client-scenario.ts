// What every scenario action of the fixture client (client.ts) shares: its shape, what the suite passes
// it besides the session, and how results and failures are printed.

import type { ClientSession } from '../../src/client/client-session.js';
import type { CallToolResult } from '../../src/protocol/types.js';

/** One scenario's work on a connected session; a rejection fails the run (exit 1). */
export type Scenario = (session: ClientSession) => Promise<void>;

/**
 * The scenario's MCP_CONFORMANCE_CONTEXT: `{name, ...}` as the suite sets it for scenarios that hand the
 * client data (pre-registered credentials, the tool calls of http-custom-headers); `{}` when absent.
 */
export function scenarioContext(): Record<string, unknown> {
  return JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>;
}

/** A tool result that is not an error, or a rejection that says what the tool said. */
export async function expectSuccess(call: Promise<CallToolResult>): Promise<CallToolResult> {
  const result = await call;
  if (result.isError === true) throw new Error(`the tool failed: ${text(result)}`);
  return result;
}

/** Prints a result's text on stdout, where the suite keeps it (stdout.txt under -o). */
export function report(result: CallToolResult): void {
  process.stdout.write(`${text(result)}\n`);
}

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(' ');
}

/** A line on stderr, prefixed so it stands out among the suite's own output. */
export function log(line: string): void {
  process.stderr.write(`conformance client: ${line}\n`);
}
