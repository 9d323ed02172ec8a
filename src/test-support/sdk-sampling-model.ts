import type { CreateMessageRequestParams, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';

/** The text of a sampling request's first message, as the official SDK's Client gets it; `?` if not text. */
export function firstPrompt(params: CreateMessageRequestParams): string {
  const first = params.messages[0]?.content;
  return first !== undefined && !Array.isArray(first) && first.type === 'text' ? first.text : '?';
}

/**
 * The model behind the official SDK's Client in the interop tests: it answers `The model says: ` and the
 * first prompt upper-cased, as `interop-model`, so a test sees its prompt made the round trip.
 */
export function shoutingModel(params: CreateMessageRequestParams): CreateMessageResult {
  return {
    role: 'assistant',
    content: { type: 'text', text: `The model says: ${firstPrompt(params).toUpperCase()}` },
    model: 'interop-model',
    stopReason: 'endTurn',
  };
}
