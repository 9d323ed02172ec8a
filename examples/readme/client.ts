// A client of the server `npx mcpwire serve` starts (or of the URL given): it lists the tools and calls one.
import { Client, connectUrl } from 'mcpwire/client';

const url = process.argv[2] ?? 'http://127.0.0.1:3000/mcp';
const client = new Client({ name: 'my-agent', version: '1.0.0' });
const session = await connectUrl(client, url); // speaks the era the server speaks: 2026-07-28 or 2025
console.log(`${session.era} era`);
for await (const tool of session.tools()) console.log(`tool: ${tool.name}`);
const sum = await session.callTool('add', { a: 1, b: 2 });
console.log(sum.content); // [ { type: 'text', text: '3' } ]
await session.close();
