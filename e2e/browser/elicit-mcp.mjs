// A stdio MCP server (the official SDK) whose tool asks the user for input while it runs
// (elicitation/create, MCP 2025-11-25), for elicit.test.mjs: book asks who the table is for
// with a form, and appends the answer it got (its action and the name) to the file named by
// argv[2], so that the test sees each answer reach the server, once; sign_in asks the user to
// open an address (URL mode) and logs `url <action>`.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const log = process.argv[2];
const server = new McpServer({ name: 'tables', version: '1.0.0' });
server.registerTool(
  'book',
  { title: 'Book a table', description: 'Books a table; asks the user who it is for.', inputSchema: {} },
  async () => {
    const r = await server.server.elicitInput({
      mode: 'form',
      message: 'Who is the table for?',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name', minLength: 2 },
          guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12, default: 2 },
          terrace: { type: 'boolean', title: 'On the terrace' },
        },
        required: ['name'],
      },
    });
    appendFileSync(log, `${r.action} ${r.content?.name ?? ''}\n`);
    const text = r.action === 'accept' ? `booked for ${r.content?.name}, ${r.content?.guests} guests` : `not booked: ${r.action}`;
    return { content: [{ type: 'text', text }] };
  },
);
server.registerTool(
  'sign_in',
  { title: 'Sign in', description: 'Has the user sign in on the shop\'s own page (URL mode).', inputSchema: {} },
  async () => {
    const r = await server.server.elicitInput({ mode: 'url', message: 'Sign in on the shop to see your orders.', url: 'https://shop.example/login?next=orders', elicitationId: 'signin-1' });
    appendFileSync(log, `url ${r.action}\n`);
    return { content: [{ type: 'text', text: `sign-in: ${r.action}` }] };
  },
);
await server.connect(new StdioServerTransport());
