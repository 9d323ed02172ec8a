// Resources, a resource template and a prompt, served on stdio in both eras (`npx tsx server.ts`).
import { ErrorCode, McpError, Server, serveStdio } from 'mcpwire/server';

const notes = new Map([
  ['1', 'Buy milk'],
  ['2', 'Call Ada'],
]);
const server = new Server({ name: 'notes', version: '1.0.0' });

// #region resource
// A resource at one URI: resources/list shows it, resources/read answers its contents.
server.resource(
  { uri: 'notes://index', name: 'index', title: 'All notes', mimeType: 'text/plain' },
  (uri) => ({
    contents: [
      { uri, mimeType: 'text/plain', text: [...notes.keys()].map((id) => `notes://${id}`).join('\n') },
    ],
  }),
);
// #endregion resource

// #region template
// A family of resources, one URI per note (RFC 6570): resources/templates/list shows the template, `list` adds
// each note to resources/list, and completion/complete suggests ids.
server.resourceTemplate(
  { uriTemplate: 'notes://{id}', name: 'note', mimeType: 'text/plain' },
  {
    read: (uri, { id }) => {
      const text = notes.get(String(id));
      if (text === undefined) {
        throw new McpError(ErrorCode.ResourceNotFound, `No note ${String(id)}`, { uri });
      }
      return { contents: [{ uri, mimeType: 'text/plain', text }] };
    },
    list: () => [...notes.keys()].map((id) => ({ uri: `notes://${id}`, name: `note ${id}` })),
    complete: { id: (value) => [...notes.keys()].filter((id) => id.startsWith(value)) },
  },
);
// #endregion template

// #region prompt
// A prompt: its arguments are typed from the list (`args.id` is a string, required).
server.prompt(
  {
    name: 'summarize',
    description: 'Asks the model to summarize a note',
    arguments: [{ name: 'id', required: true }],
  },
  (args) => ({
    messages: [
      {
        role: 'user',
        content: { type: 'resource_link', uri: `notes://${args.id}`, name: `note ${args.id}` },
      },
      { role: 'user', content: { type: 'text', text: 'Summarize this note in five words.' } },
    ],
  }),
);
// #endregion prompt

serveStdio(server);
