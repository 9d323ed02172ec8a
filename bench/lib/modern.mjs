// The modern scenario: tools/call in the 2026-07-28 era, with no session, back to back.
import { closedLoop } from './closed-loop.mjs';
import { endpoint, McpSession } from './mcp.mjs';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** A complete modern result (`resultType: "complete"`) carrying the echoed text; else what was wrong. */
const modernEchoCheck = (text) => (r) => {
  const result = r.response?.result;
  return result?.resultType === 'complete' && result.content?.[0]?.text === text
    ? null
    : `bad_result ${JSON.stringify(r.response).slice(0, 160)}`;
};

/** Why an answer is not a call that worked (non-2xx, a JSON-RPC error, a wrong result), or null. */
function failure(r, check) {
  if (r.status !== 200) return `HTTP ${r.status} ${JSON.stringify(r.response ?? '')}`;
  if (r.response?.error) return `JSON-RPC error ${JSON.stringify(r.response.error)}`;
  return check(r);
}

/**
 * f. Modern era (2026-07-28): `sessions` clients, none of which initializes, each call `echo` with the
 * envelope in `params._meta` and the headers that mirror it; each POST stands alone. One probe call first,
 * so that a server that does not serve the era fails the run with its answer instead of timing a loop of
 * errors; in the loop, non-2xx answers and JSON-RPC errors are counted as errors, never as calls.
 */
export async function modern(o) {
  const ep = endpoint(o.url, o.sessions * o.inflight + 1);
  const clients = Array.from({ length: o.sessions }, () => {
    const c = new McpSession(ep);
    c.assumeModern();
    return c;
  });
  const text = 'x'.repeat(o.textBytes);
  const check = modernEchoCheck(text);
  try {
    const probe = await clients[0].modernCallTool('echo', { text });
    const bad = failure(probe, check);
    if (bad) throw new Error(`the server does not serve a modern tools/call: ${bad.slice(0, 300)}`);
    const res = await closedLoop(clients, o, (c) => c.modernCallTool('echo', { text }), check);
    res.clients = o.sessions;
    res.server_sent_session_id = Boolean(probe.sessionId);
    res.server_info = probe.response.result._meta?.[SERVER_INFO]?.name ?? null;
    return res;
  } finally {
    await ep.close();
  }
}
