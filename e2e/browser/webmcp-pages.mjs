// A small static site for the WebMCP browser tests, on its own port of 127.0.0.1 (an origin the
// agent allows by default), like a shop that embeds the widget from the agent's host: it serves
// the pages of e2e/browser/webmcp/ and the real @mcp-b/webmcp-polyfill from node_modules. In the
// pages, <!--POLYFILL--> becomes the polyfill's IIFE script when the URL has ?polyfill=1 (its
// README's way of loading it first), with byomcp's preload.js before it (?preload=before) or
// after it (?preload=after), and <!--WIDGET--> the widget's script tag.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, recordClientEvents, newPage, waitConnected } from './harness.mjs';

const PAGES = path.join(ROOT, 'e2e', 'browser', 'webmcp');
const POLYFILL = path.join(ROOT, 'node_modules', '@mcp-b', 'webmcp-polyfill', 'dist');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/**
 * @param {string} agentURL the byomcp server (http://127.0.0.1:port)
 * @returns {Promise<{url: string, close: () => Promise<void>}>}
 */
export async function startWebMCPSite(agentURL) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const rel = url.pathname.replace(/^\/+/, '');
    const file = rel.startsWith('polyfill/') ? path.join(POLYFILL, path.basename(rel)) : path.join(PAGES, path.basename(rel));
    let body;
    try {
      body = await readFile(file, 'utf8');
    } catch {
      res.writeHead(404).end('not found');
      return;
    }
    if (file.endsWith('.html')) {
      const polyfill = url.searchParams.get('polyfill') === '1' ? '<script src="/polyfill/index.iife.js"></script>' : '';
      const preload = `<script src="${agentURL}/byomcp/preload.js"></script>`;
      const head = { before: preload + polyfill, after: polyfill + preload }[url.searchParams.get('preload') ?? ''] ?? polyfill;
      body = body.replace('<!--POLYFILL-->', head).replace('<!--WIDGET-->', `<script type="module" src="${agentURL}/byomcp/widget.js"></script>`);
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'text/plain', 'Cache-Control': 'no-store' }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The fake model's script for the Lamp Shop: each user message names what to call; the answer
 * quotes the tool's result so the tests can see it reach the visitor.
 * @param {any} body
 */
export async function shopScript(body) {
  const { lastUserText, toolResultsSinceUser } = await import('./fake-openai.mjs');
  const user = lastUserText(body);
  const results = toolResultsSinceUser(body);
  const calls = {
    'page title': { name: 'get_page_title', arguments: {} },
    'find lamps': { name: 'search_catalog', arguments: { query: 'lamp', category: 'lighting', max_price: 100 } },
    'forbidden lamps': { name: 'search_catalog', arguments: { query: 'forbidden', category: 'lighting' } },
    'contact me': { name: 'contact_us', arguments: { name: 'Ada', email: 'ada@example.com' } },
    'call me back': { name: 'call_back', arguments: { phone: '555 0100' } },
    'check stock': { name: 'check_stock', arguments: { lamp: 'Brass desk lamp' } },
    'order it': { name: 'place_order', arguments: { lamp: 'Brass desk lamp' } },
    'cancel the order': { name: 'cancel_order', arguments: { lamp: 'Brass desk lamp' } },
  };
  const key = Object.keys(calls).find((k) => user.includes(k));
  if (!key) return { text: 'I did not understand.' };
  if (!results.length) return { toolCalls: [calls[key]] };
  return { text: `Result: ${results[0].content.replace(/\s+/g, ' ')}` };
}

/**
 * Opens the Lamp Shop of site (`shop.html`, with query) in a new context of stack's browser
 * and waits until the widget is connected and the page's tools are registered. logged: the
 * page's console messages from its start ("type: text").
 * @param {any} stack what startStack returned
 * @param {{url: string}} site what startWebMCPSite returned
 * @param {string} [query] e.g. '?polyfill=1'
 */
export async function openShopPage(stack, site, query = '') {
  const context = await stack.browser.newContext();
  await recordClientEvents(context);
  const { page, errors } = await newPage(context);
  /** @type {string[]} */
  const logged = [];
  page.on('console', (m) => logged.push(`${m.type()}: ${m.text()}`));
  await page.goto(`${site.url}/shop.html${query}`);
  await waitConnected(page);
  await page.waitForFunction(() => /** @type {any} */ (window).__toolsReady === true);
  return { context, page, errors, logged };
}
