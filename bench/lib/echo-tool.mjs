// The bench's `echo` tool, as every mcpwire server of the bench registers it: server.tool(ECHO_TOOL, echo).

export const ECHO_TOOL = {
  name: 'echo',
  description: 'Returns its text',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

/** Answers with the text it was given. */
export const echo = (args) => ({ content: [{ type: 'text', text: args.text }] });
