import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { Method, type Result } from '../protocol/types.js';
import type { MethodHandler } from '../server/methods.js';

/**
 * Tools of the server behind a bridge that its clients never see (`--hide-tool`): left out of every `tools/list`
 * page, and a `tools/call` naming one is answered as a call of a tool that does not exist (-32602), never reaching
 * the server. A pattern is a tool's name, in which `*` stands for any run of characters (`delete_*`).
 */
export class HiddenTools {
  private readonly pattern: RegExp;

  constructor(patterns: readonly string[]) {
    const each = patterns.map((p) => p.split('*').map(escapeRegExp).join('.*'));
    this.pattern = new RegExp(`^(?:${each.join('|')})$`, 'su');
  }

  hides(name: unknown): boolean {
    return typeof name === 'string' && this.pattern.test(name);
  }

  /** Makes the `tools/list` and `tools/call` handlers of `table` (the bridge's, when it serves tools) hide these tools. */
  hideIn(table: Record<string, MethodHandler>): void {
    const list = table[Method.ToolsList];
    const call = table[Method.ToolsCall];
    if (list === undefined || call === undefined) return;
    table[Method.ToolsList] = async (server, params, ctx) => this.listed(await list(server, params, ctx));
    table[Method.ToolsCall] = (server, params, ctx) => {
      const name = (params as Params & { name?: unknown }).name;
      if (this.hides(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      return call(server, params, ctx);
    };
  }

  private listed<R>(result: R): R {
    const tools = (result as Result & { tools?: unknown }).tools;
    if (!Array.isArray(tools)) return result;
    const shown = tools.filter((tool) => !this.hides((tool as { name?: unknown } | null)?.name));
    return shown.length === tools.length ? result : { ...result, tools: shown };
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
