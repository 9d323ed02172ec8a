#!/usr/bin/env node
// The stdio server every bridge is benchmarked with: the official SDK v1 (1.32.2) McpServer over its
// StdioServerTransport, as most stdio servers people run are built, with the bench's `echo` tool. A 2025 server:
// what mcp-proxy and supergateway speak to their children.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';

const server = new McpServer({ name: 'bench-stdio-child', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Returns its text', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());
