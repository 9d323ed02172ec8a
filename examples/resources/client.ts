// Reads the resources and a prompt of the demo server `npx mcpwire serve` starts (or of the URL given), in the era
// the server speaks or the one given (`modern`, `legacy`): the calls are the same in both.
import { Client, connectUrl } from 'mcpwire/client';

const url = process.argv[2] ?? 'http://127.0.0.1:3000/mcp';
const era = (process.argv[3] ?? 'auto') as 'auto' | 'modern' | 'legacy';
const session = await connectUrl(new Client({ name: 'reader', version: '1.0.0' }, { era }), url);

// #region read
const { resources } = await session.listResources();
console.log('resources:', resources.map((r) => r.uri).join(', '));
const { resourceTemplates } = await session.listResourceTemplates();
console.log('templates:', resourceTemplates.map((t) => t.uriTemplate).join(', '));

const readme = await session.readResource('demo://readme'); // a resource
console.log('readme:', 'text' in readme.contents[0]! ? readme.contents[0].text.split('\n')[0] : 'binary');
const item = await session.readResource('demo://items/42'); // a URI of the template demo://items/{id}
console.log('item:', 'text' in item.contents[0]! ? item.contents[0].text : 'binary');

const prompt = await session.getPrompt('greet', { name: 'Ada' });
for (const message of prompt.messages) {
  console.log(
    `${message.role}:`,
    message.content.type === 'text' ? message.content.text : message.content.type,
  );
}
// #endregion read
console.log(`${session.era} era`);
await session.close();
