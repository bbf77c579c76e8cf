// The Lamp Shop's script, written against the WebMCP draft only (document.modelContext,
// registerTool(tool, {signal}), SubmitEvent.agentInvoked / respondWith): it runs unchanged with
// @mcp-b/webmcp-polyfill, with a native-shaped modelContext, or with the byomcp widget alone.
const w = /** @type {any} */ (window);
w.__calls = [];
const LAMPS = [
  { name: 'Brass desk lamp', category: 'lighting', price: 45 },
  { name: 'Paper floor lamp', category: 'lighting', price: 120 },
  { name: 'Oak lamp table', category: 'furniture', price: 80 },
];

document.getElementById('search').addEventListener('submit', (e) => {
  const form = /** @type {HTMLFormElement} */ (e.target);
  const data = new FormData(form);
  const words = String(data.get('query')).toLowerCase();
  const max = Number(data.get('max_price') || Infinity);
  const matches = LAMPS.filter((l) => l.name.toLowerCase().includes(words) && l.category === data.get('category') && l.price <= max);
  e.preventDefault();
  document.getElementById('results').replaceChildren(...matches.map((m) => Object.assign(document.createElement('li'), { textContent: m.name })));
  w.__calls.push({ tool: 'search_catalog', agentInvoked: e.agentInvoked });
  if (e.agentInvoked) e.respondWith(Promise.resolve({ matches: matches.map((m) => `${m.name} ($${m.price})`) }));
});
document.getElementById('q').addEventListener('input', (e) => {
  const input = /** @type {HTMLInputElement} */ (e.target);
  input.setCustomValidity(/forbidden/.test(input.value) ? 'That word is not sold here' : '');
});
document.getElementById('contact').addEventListener('submit', (e) => {
  e.preventDefault();
  document.getElementById('sent').hidden = false;
});

const mc = document.modelContext;
await mc.registerTool({
  name: 'get_page_title',
  description: 'Returns the title of this page.',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true },
  execute: async () => {
    w.__calls.push({ tool: 'get_page_title' });
    return { title: document.title };
  },
});
await mc.registerTool({
  name: 'check_stock',
  description: 'Checks the stock of a lamp in the warehouse (slow).',
  inputSchema: { type: 'object', properties: { lamp: { type: 'string' } }, required: ['lamp'] },
  execute: (input, client) => {
    // client (with the call's signal) is byomcp's extra second argument; the draft passes input only.
    w.__stockSignal = client?.signal ?? null;
    w.__calls.push({ tool: 'check_stock', input });
    return new Promise(() => {}); // the warehouse never answers
  },
});
await mc.registerTool({
  name: 'place_order',
  description: 'Orders a lamp for the visitor.',
  inputSchema: { type: 'object', properties: { lamp: { type: 'string' } }, required: ['lamp'] },
  annotations: { consequentialHint: true },
  execute: async ({ lamp }) => {
    w.__calls.push({ tool: 'place_order', lamp });
    return `Ordered: ${lamp}`;
  },
});
w.__toolsReady = true;
