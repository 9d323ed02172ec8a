/*
 * The source of a stdio MCP server written by hand, as a test writes it to a file and runs it with node: what
 * a server built on no SDK may do that ours never would (exit on an unknown request, answer nothing before
 * initialize, serve one era only).
 */

/**
 * `prelude` runs once at start; `onRequest` runs for each request (a message with an id) with `m` in scope, and
 * `answer(m, fields)` writes `{ jsonrpc, id, ...fields }` as one line. Notifications are read and ignored.
 */
export function handWrittenServer(onRequest: string, prelude = ''): string {
  return `${prelude}
const answer = (m, fields) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...fields }) + '\\n');
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    if (m.id === undefined) continue;
    ${onRequest}
  }
});
`;
}
