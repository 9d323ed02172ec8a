/**
 * The text of a tool result's content, one line per item, other kinds of content as `[type]`. Takes
 * `unknown` so that the official SDK's results, typed as a union with its legacy shape, fit too.
 */
export function toolText(result: unknown): string {
  const { content } = result as { content: ReadonlyArray<{ type: string; text?: string }> };
  return content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}
