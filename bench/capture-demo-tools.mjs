// Captures the demo's real tool sets for the bench's `realistic` pages: starts byomcp (the
// offline planner, memory store), opens each demo page in Debian's chromium, and records the
// result of the page's answer to the agent's tools/list exactly as it went over the socket
// (Playwright's WebSocket frames), with the page's URL and title. The agent's embedded
// loadgen reads agentsvc/loadgen/testdata/demo-tools.json; rerun this after changing the
// demo's tools:
//
//   node bench/capture-demo-tools.mjs            rewrite the file
//   node bench/capture-demo-tools.mjs --check    exit 1 when the file differs from the demo
//
// BYOMCP_BIN may name a built binary (else it is built).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { ROOT, WAIT_MS, buildBinary, launchBrowser, startServer } from '../e2e/browser/harness.mjs';

const OUT = path.join(ROOT, 'agentsvc/loadgen/testdata/demo-tools.json');

// The four kinds of pages of the demo, each opened on the first car of the inventory.
const PAGES = [
  { kind: 'inventory', path: '/' },
  { kind: 'car', path: '/car.html?id=c01' },
  { kind: 'test-drive', path: '/test-drive.html?id=c01' },
  { kind: 'financing', path: '/financing.html?id=c01' },
];

/**
 * Opens one page and returns the tools of its last tools/list answer once they stop changing.
 * @param {import('playwright-core').Browser} browser @param {string} url
 */
async function capture(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  /** @type {Set<string|number>} */
  const listIds = new Set();
  /** @type {any[]|null} */
  let tools = null;
  let changed = Date.now();
  page.on('websocket', (ws) => {
    // The agent's requests arrive as received frames; the page's answers leave as sent ones.
    ws.on('framereceived', ({ payload }) => {
      const msg = parse(payload);
      if (msg?.method === 'tools/list' && msg.id !== undefined) listIds.add(msg.id);
    });
    ws.on('framesent', ({ payload }) => {
      const msg = parse(payload);
      if (msg && listIds.has(msg.id) && Array.isArray(msg.result?.tools)) {
        if (msg.result.nextCursor) throw new Error(`${url}: paginated tools/list is not captured`);
        tools = msg.result.tools;
        changed = Date.now();
      }
    });
  });
  await page.goto(url);
  const deadline = Date.now() + WAIT_MS;
  // Pages register tools as they load (and re-list on list_changed): wait for a quiet second.
  while (tools === null || Date.now() - changed < 1000) {
    if (Date.now() > deadline) throw new Error(`${url}: no tools/list answer within ${WAIT_MS} ms`);
    await page.waitForTimeout(100);
  }
  const title = await page.title();
  await context.close();
  return { title, tools };
}

/** @param {string|Buffer} payload */
function parse(payload) {
  try {
    return JSON.parse(String(payload));
  } catch {
    return null;
  }
}

const { bin, cleanup } = await buildBinary();
const server = await startServer(bin);
const browser = await launchBrowser();
let status = 0;
try {
  const pages = [];
  for (const p of PAGES) {
    const { title, tools } = await capture(browser, server.url + p.path);
    pages.push({ kind: p.kind, url: 'http://localhost:3000' + p.path, title, tools });
    console.error(`${p.kind}: ${tools.length} tools, ${JSON.stringify(tools).length} bytes of definitions`);
  }
  const text =
    JSON.stringify(
      { _comment: 'Captured by bench/capture-demo-tools.mjs from the demo pages (tools/list as the page answered it). Do not edit by hand.', pages },
      null,
      1,
    ) + '\n';
  if (process.argv.includes('--check')) {
    const old = await readFile(OUT, 'utf8').catch(() => '');
    if (old !== text) {
      console.error(`${path.relative(ROOT, OUT)} is out of date: run node bench/capture-demo-tools.mjs`);
      status = 1;
    }
  } else {
    await writeFile(OUT, text);
    console.error(`wrote ${path.relative(ROOT, OUT)}`);
  }
} finally {
  await browser.close();
  await server.close();
  await cleanup();
}
process.exit(status);
