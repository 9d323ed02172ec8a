import type { InputRequests } from '../../src/protocol/modern-types.js';
import type { ContentBlock } from '../../src/protocol/types.js';
import {
  inputRequired,
  type PromptHandle,
  type Server,
  type ServerContext,
  type ToolHandle,
} from '../../src/server/index.js';

/**
 * Registers on `server` the tools and the prompt that the 2026-07-28 server scenarios of the
 * conformance suite 0.2.0-alpha.12 call (examples/conformance/FIXTURE-2026.md): the stateless
 * probes of server-stateless, and the input_required (multi round-trip) tools with the exact
 * `inputRequests` keys the scenarios read. The 2025-11-25 scenarios call none of them.
 */
export function registerFixture2026(server: Server): void {
  registerStatelessProbes(server);
  registerInputRequiredTools(server);
  registerInputRequiredPrompt(server);
}

const text = (t: string) => ({ content: [{ type: 'text', text: t }] as ContentBlock[] });

/** The schema of a one-string-field form, the shape every elicitation here asks for. */
const form = (field: string) => ({
  type: 'object' as const,
  properties: { [field]: { type: 'string' as const } },
  required: [field],
});

const elicitation = (message: string, field: string) => ({
  method: 'elicitation/create' as const,
  params: { message, requestedSchema: form(field) },
});

const sampling = (prompt: string, maxTokens: number) => ({
  method: 'sampling/createMessage' as const,
  params: {
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt } }],
    maxTokens,
  },
});

const ROOTS = { method: 'roots/list' as const, params: {} };

/** The accepted form answer under `key`, or undefined when it is absent, declined or not an ElicitResult. */
function accepted(ctx: ServerContext, key: string): Record<string, unknown> | undefined {
  const answer = ctx.inputResponses?.[key] as { action?: unknown; content?: unknown } | undefined;
  if (typeof answer !== 'object' || answer === null || answer.action !== 'accept') return undefined;
  const content = answer.content;
  return typeof content === 'object' && content !== null ? (content as Record<string, unknown>) : undefined;
}

/** One string field of the accepted form answer under `key`. */
function answered(ctx: ServerContext, key: string, field: string): string | undefined {
  const value = accepted(ctx, key)?.[field];
  return typeof value === 'string' ? value : undefined;
}

/** The text of the CreateMessageResult under `key`, or undefined when there is none. */
function sampled(ctx: ServerContext, key: string): string | undefined {
  const reply = ctx.inputResponses?.[key] as { content?: unknown } | undefined;
  const blocks = Array.isArray(reply?.content) ? reply.content : [reply?.content];
  const texts = blocks.filter(
    (b): b is { type: 'text'; text: string } => b?.type === 'text' && typeof b.text === 'string',
  );
  return texts.length > 0 ? texts.map((b) => b.text).join('') : undefined;
}

/** The root URIs of the ListRootsResult under `key`, or undefined when there is none. */
function rootsOf(ctx: ServerContext, key: string): string[] | undefined {
  const reply = ctx.inputResponses?.[key] as { roots?: unknown } | undefined;
  if (!Array.isArray(reply?.roots)) return undefined;
  return reply.roots.map((root) => String((root as { uri?: unknown })?.uri));
}

/** The `state` this fixture returned in the previous round when it is an object naming `issuedBy`. */
function stateOf<T extends { issuedBy: string }>(ctx: ServerContext, issuedBy: string): T | undefined {
  const state = ctx.requestState as T | undefined;
  return typeof state === 'object' && state !== null && state.issuedBy === issuedBy ? state : undefined;
}

function registerStatelessProbes(server: Server): void {
  // http-custom-header-server-validation needs a tool whose argument a client mirrors into Mcp-Param-Region.
  server.tool(
    {
      name: 'test_custom_header',
      description:
        'Reports the region it is called for; the region travels in the Mcp-Param-Region header too.',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
      },
    },
    (args) => text(`Region: ${String(args.region)}`),
  );
  server.tool(
    {
      name: 'test_missing_capability',
      description:
        "Asks the client's LLM for a sample, so it needs the sampling capability (-32021 without it).",
    },
    async (_args, ctx) => {
      const reply = await ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hello.' } }],
        maxTokens: 20,
      });
      const blocks = Array.isArray(reply.content) ? reply.content : [reply.content];
      return text(`Sampled: ${blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('')}`);
    },
  );

  server.tool(
    {
      name: 'test_streaming_elicitation',
      description:
        'Elicits an answer while the call is in flight: an input_required round for a 2026 request.',
    },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'What should the tool answer?',
        requestedSchema: form('answer'),
      });
      return text(
        `Elicitation answered: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
      );
    },
  );

  server.tool(
    {
      name: 'test_logging_tool',
      description:
        'Logs two info messages (delivered only when the request asked for a log level), then answers.',
    },
    async (_args, ctx) => {
      await ctx.log('info', 'Logging tool started');
      await ctx.log('info', 'Logging tool finished');
      return text('Logging tool executed successfully');
    },
  );

  let dynamicTool: ToolHandle | undefined;
  server.tool(
    {
      name: 'test_trigger_tool_change',
      description:
        'Registers test_dynamic_tool, or removes it when registered: the tool list changes on every call.',
    },
    () => {
      if (dynamicTool !== undefined) {
        dynamicTool.remove();
        dynamicTool = undefined;
        return text('Removed test_dynamic_tool');
      }
      dynamicTool = server.tool(
        { name: 'test_dynamic_tool', description: 'Registered by test_trigger_tool_change.' },
        () => text('This tool comes and goes with test_trigger_tool_change.'),
      );
      return text('Registered test_dynamic_tool');
    },
  );

  let dynamicPrompt: PromptHandle | undefined;
  server.tool(
    {
      name: 'test_trigger_prompt_change',
      description:
        'Registers test_dynamic_prompt, or removes it when registered: the prompt list changes on every call.',
    },
    () => {
      if (dynamicPrompt !== undefined) {
        dynamicPrompt.remove();
        dynamicPrompt = undefined;
        return text('Removed test_dynamic_prompt');
      }
      dynamicPrompt = server.prompt(
        { name: 'test_dynamic_prompt', description: 'Registered by test_trigger_prompt_change.' },
        () => ({
          messages: [{ role: 'user', content: { type: 'text', text: 'This prompt comes and goes.' } }],
        }),
      );
      return text('Registered test_dynamic_prompt');
    },
  );
}

function registerInputRequiredTools(server: Server): void {
  // No state: ignore-extra-params and missing-input-response send inputResponses without any requestState.
  server.tool(
    {
      name: 'test_input_required_result_elicitation',
      description: 'Asks for a name under the key user_name, then greets it; asks again until it gets one.',
    },
    (_args, ctx) => {
      const name = answered(ctx, 'user_name', 'name');
      if (name !== undefined) return text(`Hello, ${name}!`);
      return inputRequired({ inputRequests: { user_name: elicitation('What is your name?', 'name') } });
    },
  );

  server.tool(
    {
      name: 'test_input_required_result_sampling',
      description: "Asks the client's LLM, under the key capital_question, for the capital of France.",
    },
    (_args, ctx) => {
      const reply = sampled(ctx, 'capital_question');
      if (reply !== undefined) return text(`LLM response: ${reply}`);
      return inputRequired({
        inputRequests: { capital_question: sampling('What is the capital of France?', 100) },
      });
    },
  );

  server.tool(
    {
      name: 'test_input_required_result_list_roots',
      description: "Asks for the client's roots under the key client_roots, then lists them.",
    },
    (_args, ctx) => {
      const roots = rootsOf(ctx, 'client_roots');
      if (roots !== undefined) return text(`Client roots: ${roots.join(', ') || '(none)'}`);
      return inputRequired({ inputRequests: { client_roots: ROOTS } });
    },
  );

  server.tool(
    {
      name: 'test_input_required_result_request_state',
      description:
        'Asks for a confirmation with a requestState, and completes with state-ok only when it comes back.',
    },
    (_args, ctx) => {
      const state = stateOf(ctx, 'request_state');
      if (state !== undefined && accepted(ctx, 'confirm') !== undefined) {
        return text('state-ok: the requestState of round 1 came back verified');
      }
      return inputRequired({
        inputRequests: {
          confirm: {
            method: 'elicitation/create',
            params: {
              message: 'Please confirm',
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            },
          },
        },
        state: { issuedBy: 'request_state' },
      });
    },
  );

  server.tool(
    {
      name: 'test_input_required_result_multiple_inputs',
      description:
        'Asks in one round for a name (user_name), a greeting (greeting) and the roots (client_roots).',
    },
    (_args, ctx) => {
      const name = answered(ctx, 'user_name', 'name');
      const greeting = sampled(ctx, 'greeting');
      const roots = rootsOf(ctx, 'client_roots');
      if (stateOf(ctx, 'multiple_inputs') !== undefined && name && greeting && roots) {
        return text(`${greeting} ${name}; roots: ${roots.join(', ') || '(none)'}`);
      }
      return inputRequired({
        inputRequests: {
          user_name: elicitation('What is your name?', 'name'),
          greeting: sampling('Generate a greeting', 50),
          client_roots: ROOTS,
        },
        state: { issuedBy: 'multiple_inputs' },
      });
    },
  );

  // Each round's inputResponses holds that round's answers only: the name of step1 travels in the state.
  server.tool(
    {
      name: 'test_input_required_result_multi_round',
      description: 'Asks for a name (step1), then a colour (step2), carrying the name in the requestState.',
    },
    (_args, ctx) => {
      const state = stateOf<{ issuedBy: string; step: number; name?: string }>(ctx, 'multi_round');
      if (state?.step === 2 && state.name !== undefined) {
        const color = answered(ctx, 'step2', 'color');
        if (color !== undefined) return text(`${state.name} likes ${color}.`);
        return inputRequired({
          inputRequests: { step2: elicitation('Step 2: What is your favorite color?', 'color') },
          state,
        });
      }
      const name = state?.step === 1 ? answered(ctx, 'step1', 'name') : undefined;
      if (name !== undefined) {
        return inputRequired({
          inputRequests: { step2: elicitation('Step 2: What is your favorite color?', 'color') },
          state: { issuedBy: 'multi_round', step: 2, name },
        });
      }
      return inputRequired({
        inputRequests: { step1: elicitation('Step 1: What is your name?', 'name') },
        state: { issuedBy: 'multi_round', step: 1 },
      });
    },
  );

  // The server seals the state; a tampered one is refused (-32602) before this handler runs.
  server.tool(
    {
      name: 'test_input_required_result_tampered_state',
      description:
        'Asks for a confirmation with a sealed requestState; completes only with that state intact.',
    },
    (_args, ctx) => {
      if (stateOf(ctx, 'tampered_state') !== undefined && accepted(ctx, 'confirm') !== undefined) {
        return text('The requestState came back intact');
      }
      return inputRequired({
        inputRequests: { confirm: elicitation('Please confirm', 'ok') },
        state: { issuedBy: 'tampered_state' },
      });
    },
  );

  // Asks only through what this request declared: capability-check declares sampling alone.
  server.tool(
    {
      name: 'test_input_required_result_capabilities',
      description: "Asks for input only through the capabilities this request's client declared.",
    },
    (_args, ctx) => {
      const declared = ctx.scope.clientCapabilities ?? {};
      const inputRequests: InputRequests = {};
      if (declared.elicitation !== undefined && accepted(ctx, 'user_name') === undefined) {
        inputRequests.user_name = elicitation('What is your name?', 'name');
      }
      if (declared.sampling !== undefined && sampled(ctx, 'greeting') === undefined) {
        inputRequests.greeting = sampling('Generate a greeting', 50);
      }
      if (declared.roots !== undefined && rootsOf(ctx, 'client_roots') === undefined) {
        inputRequests.client_roots = ROOTS;
      }
      if (Object.keys(inputRequests).length > 0) return inputRequired({ inputRequests });
      return text(`Asked through: ${Object.keys(declared).join(', ') || 'nothing (no capability declared)'}`);
    },
  );
}

function registerInputRequiredPrompt(server: Server): void {
  server.prompt(
    {
      name: 'test_input_required_result_prompt',
      description: 'A prompt that asks, under the key user_context, for the context it should use.',
    },
    (_args, ctx) => {
      const context = answered(ctx, 'user_context', 'context');
      if (context === undefined) {
        return inputRequired({
          inputRequests: { user_context: elicitation('What context should the prompt use?', 'context') },
        });
      }
      return {
        messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${context}` } }],
      };
    },
  );
}
