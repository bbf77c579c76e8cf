// Records the tools/list answer of a stdio MCP server, as the MCP TypeScript SDK's client sees
// it, for the planner's tests (TestServerTools). Run from the repository root, e.g.:
//   node agentsvc/planner/testdata/capture-server-tools.mjs npx -y @modelcontextprotocol/server-filesystem /tmp/dir \
//     > agentsvc/planner/testdata/server-filesystem-tools.json
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: capture-server-tools.mjs COMMAND [ARGS…]');
  process.exit(2);
}
const client = new Client({ name: 'byomcp-capture', version: '1' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
const { tools } = await client.listTools();
const out = {
  _comment: `Captured by agentsvc/planner/testdata/capture-server-tools.mjs from: ${[command, ...args].join(' ')}. Do not edit by hand.`,
  server: client.getServerVersion(),
  tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
};
console.log(JSON.stringify(out, null, 1));
await client.close();
