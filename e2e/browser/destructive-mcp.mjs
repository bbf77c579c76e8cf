// A stdio MCP server (the official SDK) with one tool marked destructiveHint: true, for
// server-confirm.test.mjs: it appends a line with the scope it was called with to the file
// named by argv[2] each time it runs. Its title, schema and _meta["byomcp/summary"] are
// what the visitor's confirmation card shows of it.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const log = process.argv[2];
const server = new McpServer({ name: 'admin', version: '1.0.0' });
server.registerTool(
  'wipe',
  {
    title: 'Wipe orders',
    description: 'Deletes orders.',
    inputSchema: { scope: z.enum(['all', 'mine']).default('all').describe('Which orders') },
    annotations: { destructiveHint: true },
    _meta: { 'byomcp/summary': 'Delete {scope} orders' },
  },
  async ({ scope }) => {
    appendFileSync(log, `wiped ${scope}\n`);
    return { content: [{ type: 'text', text: `${scope} orders deleted` }] };
  },
);
await server.connect(new StdioServerTransport());
