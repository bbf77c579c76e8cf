// A page written for WebMCP with the real @mcp-b/webmcp-polyfill 5.1.0 loaded first (as its
// README says): the widget reads the polyfill's tools with getTools(), runs them with
// executeTool(tool, inputArgsJson, {signal}), and Stop aborts that signal. One imperative tool
// and one declarative <form toolname toolautosubmit> answered with SubmitEvent.respondWith.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, ask, waitIdle, waitTurnEnds, W } from './harness.mjs';
import { toolNames } from './fake-openai.mjs';
import { startWebMCPSite, shopScript, openShopPage } from './webmcp-pages.mjs';

let stack;
let site;
before(async () => {
  stack = await startStack({ script: shopScript });
  site = await startWebMCPSite(stack.server.url);
});
after(async () => {
  await site?.close();
  await stack?.close();
});

/** Opens the Lamp Shop with the polyfill; records the signals executeTool receives. */
async function openShop() {
  const { context, page, errors } = await openShopPage(stack, site, '?polyfill=1');
  // Observe (not change) what the widget passes to the polyfill's executeTool.
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    const mc = /** @type {any} */ (document).modelContext;
    w.__executed = [];
    const real = mc.executeTool;
    mc.executeTool = function (/** @type {any[]} */ ...args) {
      w.__executed.push({ tool: args[0]?.name, input: args[1], signal: args[2]?.signal ?? null, aborted: false });
      args[2]?.signal?.addEventListener('abort', () => (w.__executed.at(-1).aborted = true));
      return real.apply(this, args);
    };
  });
  return { context, page, errors };
}

test('the polyfill is the page\'s modelContext and its tools reach the model', async () => {
  const { context, page, errors } = await openShop();
  try {
    assert.equal(await page.evaluate(() => /** @type {any} */ (document).modelContext.__isWebMCPPolyfill), true, 'the widget replaced the polyfill');
    await ask(page, 'what is the page title?');
    await page.locator(W.text).filter({ hasText: 'Result:' }).waitFor();
    await waitIdle(page);
    const text = await page.locator(W.text).last().innerText();
    assert.match(text, /Lamp Shop \(WebMCP test page\)/, 'the imperative result reached the answer');
    const offered = toolNames(stack.fake.requests.at(-1).body);
    for (const name of ['get_page_title', 'check_stock', 'place_order', 'search_catalog', 'contact_us']) assert.ok(offered.includes(name), `${name} not offered: ${offered}`);
    const executed = await page.evaluate(() => /** @type {any} */ (window).__executed.map((e) => ({ tool: e.tool, input: e.input, hasSignal: e.signal instanceof AbortSignal })));
    assert.deepEqual(executed, [{ tool: 'get_page_title', input: '{}', hasSignal: true }]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a declarative form tool: filled, submitted, answered with respondWith', async () => {
  const { context, page, errors } = await openShop();
  try {
    await ask(page, 'find lamps for me');
    await page.locator(W.text).filter({ hasText: 'Result:' }).waitFor();
    await waitIdle(page);
    assert.match(await page.locator(W.text).last().innerText(), /Brass desk lamp \(\$45\)/);
    assert.equal(await page.locator('#q').inputValue(), 'lamp');
    assert.deepEqual(await page.locator('#results li').allInnerTexts(), ['Brass desk lamp']);
    const calls = await page.evaluate(() => /** @type {any} */ (window).__calls);
    assert.deepEqual(calls, [{ tool: 'search_catalog', agentInvoked: true }]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Stop aborts the signal given to executeTool', async () => {
  const { context, page, errors } = await openShop();
  try {
    await ask(page, 'check stock please');
    await page.waitForFunction(() => /** @type {any} */ (window).__calls.some((c) => c.tool === 'check_stock'));
    await page.locator(W.stop).click();
    const [end] = await waitTurnEnds(page, 1);
    assert.equal(end.stopReason, 'cancelled');
    await page.waitForFunction(() => /** @type {any} */ (window).__executed.find((e) => e.tool === 'check_stock')?.aborted === true);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
