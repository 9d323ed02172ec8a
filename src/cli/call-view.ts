import { writeFile } from 'node:fs/promises';
import type { ClientSession } from '../client/client-session.js';
import type { TaskRequestOptions } from '../client/task-types.js';
import { readView, viewOf } from '../extensions/apps/views.js';

/**
 * `mcpwire call URL view TOOL [FILE]`: the tool's MCP Apps view, found in the server's tool list and read;
 * its HTML printed, or written to FILE (then a line saying so). The result (for --json) is the view with its
 * `_meta.ui`. A tool that is not listed, or has no view, fails the action, naming it.
 */
export async function toolView(
  session: ClientSession,
  name: string,
  file: string | undefined,
  options: TaskRequestOptions,
): Promise<{ result: unknown; text: string; failed: boolean }> {
  let found = false;
  let uri: string | undefined;
  for await (const tool of session.tools(options)) {
    if (tool.name !== name) continue;
    found = true;
    uri = viewOf(tool)?.uri;
    break;
  }
  if (!found) throw new Error(`The server lists no tool "${name}"`);
  if (uri === undefined) throw new Error(`Tool "${name}" has no view (no _meta.ui.resourceUri)`);
  const view = await readView(session, uri);
  if (file === undefined) return { result: view, text: view.html, failed: false };
  await writeFile(file, view.html);
  const bytes = Buffer.byteLength(view.html);
  return {
    result: view,
    text: `wrote the view of ${name} (${uri}, ${bytes} bytes) to ${file}\n`,
    failed: false,
  };
}
