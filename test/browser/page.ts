// The page browser.test.ts bundles (esbuild, platform browser) and opens in Chromium: mcpwire's client from
// `mcpwire/browser`, against `mcpwire serve` on another origin. Each scenario shows what happens on the page and
// resolves with it, for the test to check. The query names the servers: ?server=…/mcp&proxy=…/mcp.
import { Client, type ClientSession, connectUrl } from 'mcpwire/browser';

const query = new URLSearchParams(location.search);
const server = query.get('server') ?? '';
const proxy = query.get('proxy') ?? '';

const client = new Client({ name: 'mcpwire-browser-test', version: '1.0.0' }, { requestTimeoutMs: 15_000 });
const legacyClient = new Client(
  { name: 'mcpwire-browser-test', version: '1.0.0' },
  { era: 'legacy', requestTimeoutMs: 15_000 },
);

/** The page's section for a scenario: a heading, a status line, and room for lines of detail. */
function section(id: string, title: string) {
  const root = document.createElement('section');
  root.id = id;
  const heading = document.createElement('h2');
  heading.textContent = title;
  const status = document.createElement('p');
  status.className = 'status';
  status.textContent = 'running…';
  const lines = document.createElement('ul');
  root.append(heading, status, lines);
  document.body.append(root);
  return {
    root,
    status: (text: string) => {
      status.textContent = text;
    },
    line: (text: string) => {
      const item = document.createElement('li');
      item.textContent = text;
      lines.append(item);
    },
  };
}

function text(result: { content: unknown[] }): string {
  const first = result.content[0] as { type?: string; text?: string } | undefined;
  return first?.type === 'text' ? (first.text ?? '') : JSON.stringify(result.content);
}

/** A call of long_running with each progress notification shown as it comes: a bar, and a line per step. */
async function longRunning(session: ClientSession, steps: number, view: ReturnType<typeof section>) {
  const bar = document.createElement('progress');
  bar.max = steps;
  bar.value = 0;
  view.root.insertBefore(bar, view.root.querySelector('ul'));
  const progress: number[] = [];
  const result = await session.callTool(
    'long_running',
    { duration: 2, steps },
    {
      onprogress: (p) => {
        progress.push(p.progress);
        bar.value = p.progress;
        view.line(`progress ${p.progress}/${p.total ?? '?'}${p.message ? `: ${p.message}` : ''}`);
      },
    },
  );
  return { progress, text: text(result) };
}
let session: ClientSession | undefined;

async function connected(): Promise<ClientSession> {
  session ??= await connectUrl(client, server, { timeoutMs: 15_000 });
  return session;
}

const scenarios = {
  /** connectUrl (era auto) and tools/list. */
  async listTools(): Promise<{ era: string; tools: string[] }> {
    const view = section('tools', `Tools of ${server}`);
    const s = await connected();
    const { tools } = await s.listTools();
    for (const tool of tools) view.line(`${tool.name}: ${tool.description ?? ''}`);
    view.status(`${tools.length} tools, ${s.era} era (${s.protocolVersion})`);
    return { era: s.era, tools: tools.map((t) => t.name) };
  },

  /** long_running with its progress shown on the page. */
  async callWithProgress(): Promise<{ progress: number[]; text: string }> {
    const view = section('progress', 'long_running, with progress');
    const outcome = await longRunning(await connected(), 5, view);
    view.status(outcome.text);
    return outcome;
  },

  /** The legacy HTTP+SSE transport (/sse), echo. */
  async legacySse(): Promise<string> {
    const view = section('sse', 'The legacy HTTP+SSE transport');
    const sse = await connectUrl(legacyClient, server.replace(/\/mcp$/, '/sse'), {
      transport: 'sse',
      timeoutMs: 15_000,
    });
    try {
      const answer = text(await sse.callTool('echo', { message: 'from a page' }));
      view.status(answer);
      return answer;
    } finally {
      await sse.close();
    }
  },

  /**
   * A 2025-11-25 session through the proxy, which cuts the call's response stream: the client resumes it with
   * Last-Event-ID. Every request is shown, so the resumption can be seen on the page.
   */
  async resumed(): Promise<{ progress: number[]; text: string; resumedFrom: string[] }> {
    const view = section('resumed', 'A stream cut by the server side, resumed');
    const resumedFrom: string[] = [];
    const logged: typeof fetch = (input, init) => {
      const lastEventId = new Headers(init?.headers).get('last-event-id');
      if (lastEventId !== null) {
        resumedFrom.push(lastEventId);
        view.line(`resumed with GET, Last-Event-ID: ${lastEventId}`);
      }
      return fetch(input, init);
    };
    const cut = await connectUrl(legacyClient, proxy, {
      transport: 'http',
      fetch: logged,
      timeoutMs: 15_000,
    });
    try {
      const outcome = await longRunning(cut, 10, view);
      view.status(`${outcome.text} (${cut.era} era, resumed ${resumedFrom.length}×)`);
      return { ...outcome, resumedFrom };
    } finally {
      await cut.close();
    }
  },

  /** From a page whose origin the server does not allow: connecting must fail. */
  async refused(): Promise<{ name: string; message: string }> {
    const view = section('refused', `From ${location.origin}, not an allowed origin`);
    try {
      const s = await connectUrl(client, server, { timeoutMs: 15_000 });
      await s.close();
      view.status('connected (it should not have)');
      return { name: '', message: 'connected' };
    } catch (err) {
      const e = err as Error;
      view.status(`refused: ${e.name}: ${e.message}`);
      return { name: e.name, message: e.message };
    }
  },
};

Object.assign(window, { scenarios });
document.title = 'mcpwire in a browser';
