import type { Interface } from 'node:readline/promises';
import type { SamplingHandler } from '../client/client.js';
import { McpError } from '../jsonrpc/errors.js';
import type { CreateMessageRequestParams, CreateMessageResult, SamplingMessage } from '../protocol/types.js';
import { type Converse, canAsk, type Terminal } from './terminal.js';

/** The error code the spec gives a sampling request the user rejected. */
const USER_REJECTED = -1;
/** What `mcpwire call` names as the model in its sampling answers. */
const MODEL = 'mcpwire-call';

/**
 * How `mcpwire call` answers `sampling/createMessage`: with `reply` when given; else by asking the
 * person at the terminal (the request's messages on stderr, the answer read from stdin, one request at
 * a time); else, with no terminal to ask on, by refusing with the spec's "user rejected" error, whose
 * message says how to answer instead.
 */
export function cliSampling(
  reply: string | undefined,
  terminal: Terminal,
  converse: Converse,
): SamplingHandler {
  if (reply !== undefined) return () => answer(reply);
  return (params, ctx) => {
    if (!canAsk(terminal)) {
      throw new McpError(
        USER_REJECTED,
        'User rejected sampling request: mcpwire call was given no --sampling-reply and has no terminal to ask on',
      );
    }
    return converse((rl) => ask(params, terminal, rl, ctx.signal));
  };
}

async function ask(
  params: CreateMessageRequestParams,
  terminal: Terminal,
  rl: Interface,
  signal: AbortSignal,
): Promise<CreateMessageResult> {
  const lines = ['The server asks for a model reply (sampling):'];
  if (params.systemPrompt) lines.push(`  system: ${params.systemPrompt}`);
  for (const message of params.messages) lines.push(`  ${message.role}: ${messageText(message)}`);
  terminal.output.write(`${lines.join('\n')}\n`);
  const text = await rl.question('Reply (an empty line declines): ', { signal });
  if (text.trim() === '') throw new McpError(USER_REJECTED, 'User rejected sampling request');
  return answer(text);
}

function answer(text: string): CreateMessageResult {
  return { role: 'assistant', content: { type: 'text', text }, model: MODEL, stopReason: 'endTurn' };
}

function messageText(message: SamplingMessage): string {
  const blocks = Array.isArray(message.content) ? message.content : [message.content];
  return blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
}
