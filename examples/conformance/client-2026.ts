// The fixture client's actions for the client scenarios that conformance 0.2.0-alpha.12 added (the
// non-auth ones of `list --requirements 2026-07-28`, and json-schema-2020-12-preservation, which both
// requirement sets run unscored). What each mock checks is in FIXTURE-CLIENT-2026.md; the actions only
// use the ClientSession API, and the era (headers, _meta, input_required rounds) is the Client's work.

import type { ClientOptions } from '../../src/client/client.js';
import type { JsonObject, Tool } from '../../src/protocol/types.js';
import { expectSuccess, log, report, type Scenario, scenarioContext } from './client-scenario.js';

/** The client scenarios alpha.12 added, by name (auth/* excepted: client.ts has those). */
export const SCENARIOS_2026: Record<string, Scenario> = {
  // The checks read the _meta and MCP-Protocol-Version of every POST, the first of which the mock
  // refuses with -32022: the connect's discover and its retry are the whole exchange (the discover
  // result declares no capabilities, so there is nothing else to ask).
  'request-metadata': async () => {},

  // An MRTR round trip with requestState, one without, an unrelated call while the first is open, and a
  // result without resultType (complete: no retry).
  'sep-2322-client-request-state': async (session) => {
    const [echoed, unrelated] = await Promise.all([
      expectSuccess(session.callTool('test_mrtr_echo_state', {})),
      expectSuccess(session.callTool('test_mrtr_unrelated', {})),
    ]);
    report(echoed);
    report(unrelated);
    report(await expectSuccess(session.callTool('test_mrtr_no_state', {})));
    report(await expectSuccess(session.callTool('test_mrtr_no_result_type', {})));
  },

  // Mcp-Method on every method the mock checks, Mcp-Name on the first tools/call, resources/read and
  // prompts/get (a hyphenated tool name, a percent-encoded URI).
  'http-standard-headers': async (session) => {
    const { tools } = await session.listTools();
    for (const tool of tools) report(await expectSuccess(session.callTool(tool.name, {})));
    const { resources } = await session.listResources();
    for (const resource of resources) await session.readResource(resource.uri);
    const { prompts } = await session.listPrompts();
    for (const prompt of prompts) await session.getPrompt(prompt.name);
  },

  // The tool calls come in MCP_CONFORMANCE_CONTEXT (15 argument encodings, then a null); tools/list
  // first, so the Client knows the x-mcp-header annotations it must mirror into Mcp-Param-* headers.
  'http-custom-headers': async (session) => {
    const { toolCalls } = scenarioContext() as { toolCalls?: { name: string; arguments: JsonObject }[] };
    if (!Array.isArray(toolCalls)) throw new Error('MCP_CONFORMANCE_CONTEXT has no toolCalls');
    await session.listTools();
    for (const call of toolCalls) report(await expectSuccess(session.callTool(call.name, call.arguments)));
  },

  // Eleven of the twelve tools carry an invalid x-mcp-header: whichever the Client still offers after
  // tools/list is called, and one it refuses to call is logged, not fatal (valid_tool must still run).
  'http-invalid-tool-headers': async (session) => {
    const { tools } = await session.listTools();
    for (const tool of tools) {
      try {
        report(await expectSuccess(session.callTool(tool.name, placeholderArguments(tool))));
      } catch (err) {
        log(`${tool.name} not called: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  },

  // The listed tool's inputSchema has a $ref to a canary URL on the mock: listing must not fetch it.
  'json-schema-ref-no-deref': async (session) => {
    await session.listTools();
  },

  // Unscored in both legs: echo the focal tool's inputSchema, as listed, back through json_schema_echo.
  'json-schema-2020-12-preservation': async (session) => {
    const { tools } = await session.listTools();
    const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
    if (focal === undefined) throw new Error('tools/list has no json_schema_2020_12_tool');
    report(await expectSuccess(session.callTool('json_schema_echo', { schema: focal.inputSchema })));
  },
};

/**
 * Client options a scenario needs beyond the fixture's defaults. request-metadata checks each declared
 * roots, sampling and elicitation capability (an undeclared one is SKIPPED), so all three are declared.
 */
export function scenarioOptions(name: string): ClientOptions {
  if (name !== 'request-metadata') return {};
  return {
    roots: [],
    sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'no model here' }, model: 'none' }),
  };
}

/** A value of each required property's declared type: enough for a mock that only records the call. */
function placeholderArguments(tool: Tool): JsonObject {
  const args: JsonObject = {};
  for (const key of tool.inputSchema.required ?? []) {
    const type = tool.inputSchema.properties?.[key]?.type;
    args[key] =
      type === 'number' || type === 'integer'
        ? 1
        : type === 'boolean'
          ? true
          : type === 'object'
            ? {}
            : type === 'array'
              ? []
              : type === 'null'
                ? null
                : 'x';
  }
  return args;
}
