import assert from 'node:assert/strict';
import { toolText } from './tool-text.js';

/**
 * What a walk through the demo server needs of a client, whichever SDK or era it comes from: each test wraps
 * its own client in this shape, so that every client is held to the same assertions.
 */
export interface DemoPeer {
  /** tools/call; `onprogress` gets each progress value the server reports for this call. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    onprogress?: (progress: number) => void,
  ): Promise<unknown>;
  toolNames(): Promise<string[]>;
  resourceUris(): Promise<string[]>;
  templateUris(): Promise<string[]>;
  /** resources/read of `uri`: the text of its first content. */
  readText(uri: string): Promise<string>;
  promptNames(): Promise<string[]>;
  /** prompts/get: the text of the first message. */
  promptText(name: string, args: Record<string, string>): Promise<string>;
  /** completion/complete of the greet prompt's `name` argument. */
  completeGreetName(value: string): Promise<string[]>;
}

/** The one root a walking client lists: `list_roots` must bring it back. */
export const WALK_ROOT = { uri: 'file:///work/project', name: 'project' };

/** What a walking client's user answers to elicitation: `elicit_name` must greet it. */
export const WALK_NAME = 'Grace';

/** The tools every demo server has, whoever else has toggled `bonus` meanwhile. */
const DEMO_TOOLS = [
  'echo',
  'add',
  'long_running',
  'sample',
  'list_roots',
  'elicit_name',
  'toggle_tool',
  'touch_readme',
  'counter',
  'counter_increment',
  'counter_reset',
];

/**
 * Walks every feature of the demo server through `peer` and asserts what a user sees: tools (echo, add with
 * structured content, long_running with progress), resources, the template, the prompt, completion, and
 * the three calls back to the client (sampling answered by `shoutingModel`, roots answered with
 * `WALK_ROOT`, elicitation answered with `WALK_NAME`). Touches no shared state, so walks may run at once.
 */
export async function walkDemo(peer: DemoPeer): Promise<void> {
  const tools = await peer.toolNames();
  for (const name of DEMO_TOOLS) assert.ok(tools.includes(name), `tools/list lacks ${name}: ${tools}`);

  assert.equal(toolText(await peer.callTool('echo', { message: 'across eras' })), 'Echo: across eras');
  const add = (await peer.callTool('add', { a: 2, b: 40 })) as { structuredContent?: unknown };
  assert.deepEqual(add.structuredContent, { sum: 42 });
  const progress: number[] = [];
  const long = await peer.callTool('long_running', { duration: 0.2, steps: 4 }, (p) => progress.push(p));
  assert.equal(toolText(long), 'Long-running operation completed: 4 steps in 0.2 s');
  assert.deepEqual(progress, [1, 2, 3, 4]);

  assert.deepEqual(await peer.resourceUris(), ['demo://readme', 'ui://demo/counter']);
  assert.deepEqual(await peer.templateUris(), ['demo://items/{id}']);
  assert.match(await peer.readText('demo://readme'), /^# mcpwire demo/);
  assert.equal(await peer.readText('demo://items/7'), 'This is demo item 7.');
  assert.deepEqual(await peer.promptNames(), ['greet']);
  assert.equal(await peer.promptText('greet', { name: 'Ada' }), 'Please greet Ada warmly.');
  assert.deepEqual(await peer.completeGreetName('gr'), ['Grace']);

  assert.equal(toolText(await peer.callTool('sample', { prompt: 'hello' })), 'The model says: HELLO');
  const roots = (await peer.callTool('list_roots')) as { structuredContent?: unknown };
  assert.deepEqual(roots.structuredContent, { roots: [WALK_ROOT.uri] });
  assert.equal(toolText(await peer.callTool('elicit_name')), `Hello, ${WALK_NAME}`);
}
