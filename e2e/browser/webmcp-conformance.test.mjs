// Conformance: byomcp's own document.modelContext and the third-party @mcp-b/webmcp-polyfill
// 5.1.0 (the WebMCP runtime most pages load) run the same cases (e2e/browser/webmcp/conformance.js)
// in the browser and must observe the same: registerTool rejections, getTools' RegisteredTool
// objects, executeTool's results and errors, abort, and the declarative form's schema and
// respondWith result.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, newPage, WAIT_MS } from './harness.mjs';
import { startWebMCPSite } from './webmcp-pages.mjs';

let stack;
let site;
before(async () => {
  stack = await startStack();
  site = await startWebMCPSite(stack.server.url);
});
after(async () => {
  await site?.close();
  await stack?.close();
});

/** Runs the cases in a fresh page and returns the report. */
async function run(query) {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(`${site.url}/conformance.html?${query}`);
    await page.waitForFunction(() => /** @type {any} */ (window).__report !== undefined, null, { timeout: WAIT_MS });
    const report = await page.evaluate(() => /** @type {any} */ (window).__report);
    const isPolyfill = await page.evaluate(() => /** @type {any} */ (document).modelContext.__isWebMCPPolyfill === true);
    assert.deepEqual(errors, [], `page errors (${query})`);
    return { report, isPolyfill };
  } finally {
    await context.close();
  }
}

test('our document.modelContext behaves as @mcp-b/webmcp-polyfill on the same cases', async () => {
  const theirs = await run('polyfill=1');
  const ours = await run(`agent=${encodeURIComponent(stack.server.url)}`);
  assert.equal(theirs.isPolyfill, true, 'the polyfill page runs the polyfill');
  assert.equal(ours.isPolyfill, false, 'our page runs ours');
  // Sanity: the cases really exercised something (a report of nothing would compare equal).
  assert.equal(theirs.report.duplicate, 'InvalidStateError');
  assert.equal(theirs.report.tools.length, 9);
  assert.equal(JSON.parse(theirs.report.formResult.ok).query, 'lamp');
  for (const key of Object.keys(theirs.report)) {
    if (key === 'textInput') continue; // below
    assert.deepEqual(ours.report[key], theirs.report[key], `case ${key} differs`);
  }
  // JSON text as the input: the polyfill parses it (as Chromium until 154); ours refuses any
  // input that is not an object with a TypeError, as Chromium 156 does.
  const parse = { error: 'UnknownError', message: 'Failed to parse input arguments' };
  assert.deepEqual(theirs.report.textInput, { 'bad JSON': parse, 'JSON string': parse });
  const refused = { error: 'TypeError', message: 'invalid input object' };
  assert.deepEqual(ours.report.textInput, { 'bad JSON': refused, 'JSON string': refused });
  assert.deepEqual(Object.keys(ours.report), Object.keys(theirs.report));
});
