// A stdio MCP server (the official SDK) with one tool marked destructiveHint: true, for
// server-confirm.test.mjs: it appends a line to the file named by argv[2] each time it runs.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const log = process.argv[2];
const server = new McpServer({ name: 'admin', version: '1.0.0' });
server.registerTool(
  'wipe',
  { description: 'Deletes every order.', annotations: { destructiveHint: true } },
  async () => {
    appendFileSync(log, 'wiped\n');
    return { content: [{ type: 'text', text: 'all orders deleted' }] };
  },
);
await server.connect(new StdioServerTransport());
