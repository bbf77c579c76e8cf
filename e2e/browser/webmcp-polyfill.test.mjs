// A page written for WebMCP with the real @mcp-b/webmcp-polyfill 5.1.0 loaded first (as its
// README says): the widget reads the polyfill's tools with getTools(), runs them with
// executeTool(tool, input, {signal}) (the polyfill takes the input as JSON text), and Stop
// aborts that signal. One imperative tool and one declarative <form toolname toolautosubmit>
// answered with SubmitEvent.respondWith.
// The hints the polyfill's getTools() leaves out (destructiveHint, consequentialHint) still ask
// the visitor: recorded by preload.js after the polyfill, or by the widget for tools registered
// after it; preload.js before the polyfill makes the polyfill step aside for ours.
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
async function openShop(query = '?polyfill=1') {
  const { context, page, errors, logged } = await openShopPage(stack, site, query);
  // Observe (not change) what the widget passes to the polyfill's executeTool.
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    const mc = /** @type {any} */ (document).modelContext;
    w.__executed = [];
    const real = mc.executeTool;
    mc.executeTool = function (/** @type {any[]} */ ...args) {
      const call = { tool: args[0]?.name, input: args[1], signal: args[2]?.signal ?? null, aborted: false };
      w.__executed.push(call);
      args[2]?.signal?.addEventListener('abort', () => (call.aborted = true));
      return real.apply(this, args);
    };
  });
  return { context, page, errors, logged };
}

/**
 * Registers, from the page, a tool the page marks destructive (after the widget has loaded).
 * @param {import('playwright-core').Page} page
 */
function registerCancelOrder(page) {
  return page.evaluate(async () => {
    const w = /** @type {any} */ (window);
    await /** @type {any} */ (document).modelContext.registerTool({
      name: 'cancel_order',
      description: 'Cancels the visitor\'s order of a lamp.',
      inputSchema: { type: 'object', properties: { lamp: { type: 'string' } }, required: ['lamp'] },
      annotations: { destructiveHint: true },
      execute: async ({ lamp }) => {
        w.__calls.push({ tool: 'cancel_order', lamp });
        return `Cancelled: ${lamp}`;
      },
    });
    // The agent has the tool once the widget's host does.
    await new Promise((resolve) => {
      const check = () => (w.byomcp.host.has('cancel_order') ? resolve(undefined) : setTimeout(check, 20));
      check();
    });
  });
}

/**
 * Asks for a tool that needs consent, checks that the card names it, and confirms.
 * @param {import('playwright-core').Page} page
 * @param {string} question
 * @param {string} label the tool as the card names it
 * @param {string} answer the model's answer after the tool ran
 */
async function confirmCall(page, question, label, answer) {
  await ask(page, question);
  await page.locator(W.confirm).waitFor();
  assert.equal(await page.locator(`${W.confirm} .confirm-action`).innerText(), label);
  await page.locator(W.confirmOk).click();
  await page.locator(W.text).filter({ hasText: answer }).waitFor();
  await waitIdle(page);
}

/**
 * The confirmation hints the widget's host has for each tool of names.
 * @param {import('playwright-core').Page} page
 * @param {string[]} names
 */
function confirmHints(page, names) {
  return page.evaluate(
    (ns) =>
      ns.map((n) => {
        const a = /** @type {any} */ (window).byomcp.host.listTools().find((t) => t.name === n)?.annotations ?? {};
        return [n, a.destructiveHint === true, a.consequentialHint === true];
      }),
    names,
  );
}

test('the polyfill is the page\'s modelContext and its tools reach the model', async () => {
  const { context, page, errors, logged } = await openShop();
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
    // The polyfill (5.1.0) takes JSON text, as Chromium until 154 did: it refuses the input as an
    // object (the draft's and Chromium's from 155) before running the tool, and then gets the text.
    assert.deepEqual(executed, [
      { tool: 'get_page_title', input: {}, hasSignal: true },
      { tool: 'get_page_title', input: '{}', hasSignal: true },
    ]);
    assert.deepEqual(errors, []);
    assert.deepEqual(logged.filter((l) => /WebMCPPolyfill/.test(l)), [], 'the widget set off a polyfill warning');
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

test('a form without toolautosubmit: the polyfill fills it, the agent is answered at once, the visitor sends it', async () => {
  // The polyfill's executeTool fills the form, fires 'toolactivated' at the window and would
  // wait for the submit; the widget answers as its own implementation does and cancels that
  // call, so the visitor's submit is theirs.
  const { context, page, errors } = await openShop();
  try {
    await ask(page, 'contact me please');
    await page.locator(W.text).filter({ hasText: 'Result:' }).waitFor();
    await waitIdle(page);
    const text = await page.locator(W.text).last().innerText();
    assert.match(text, /Filled name, email in the form "contact_us"\. The form was not submitted: it waits for the visitor to check it and press "Send message"/);
    assert.equal(await page.locator('#contact input[name="name"]').inputValue(), 'Ada');
    const call = await page.evaluate(() => /** @type {any} */ (window).__executed.filter((e) => e.tool === 'contact_us').map((e) => e.aborted));
    assert.deepEqual(call, [true, true], 'refused as an object, then given as text, filled, and its signal aborted');
    assert.equal(await page.locator('#sent').isVisible(), false, 'the agent did not send it');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Stop aborts the signal given to executeTool, and logs no error on the page', async () => {
  const { context, page, errors, logged } = await openShop();
  try {
    await ask(page, 'check stock please');
    await page.waitForFunction(() => /** @type {any} */ (window).__calls.some((c) => c.tool === 'check_stock'));
    await page.locator(W.stop).click();
    const [end] = await waitTurnEnds(page, 1);
    assert.equal(end.stopReason, 'cancelled');
    await page.waitForFunction(() => /** @type {any} */ (window).__executed.some((e) => e.tool === 'check_stock' && e.aborted));
    // The aborted call's rejection comes back through the widget; a cancelled call is normal.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
    assert.deepEqual(logged.filter((l) => l.startsWith('error:')), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('preload.js after the polyfill: destructiveHint and consequentialHint still ask the visitor', async () => {
  const { context, page, errors, logged } = await openShop('?polyfill=1&preload=after');
  try {
    assert.equal(await page.evaluate(() => /** @type {any} */ (document).modelContext.__isWebMCPPolyfill), true, 'the polyfill serves the page');
    await registerCancelOrder(page);
    // place_order (consequentialHint) was registered by the page's script, cancel_order
    // (destructiveHint) just now: the polyfill's getTools() reports neither hint.
    assert.deepEqual(await page.evaluate(async () => (await /** @type {any} */ (document).modelContext.getTools()).map((t) => [t.name, t.annotations ?? null]).filter(([n]) => n === 'place_order' || n === 'cancel_order')), [
      ['cancel_order', { readOnlyHint: false, untrustedContentHint: false }],
      ['place_order', { readOnlyHint: false, untrustedContentHint: false }],
    ]);
    assert.deepEqual(await confirmHints(page, ['place_order', 'cancel_order', 'get_page_title']), [
      ['place_order', false, true],
      ['cancel_order', true, false],
      ['get_page_title', false, false],
    ]);
    await confirmCall(page, 'order it', 'Place order', 'Ordered: Brass desk lamp');
    await confirmCall(page, 'cancel the order', 'Cancel order', 'Cancelled: Brass desk lamp');
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__calls.filter((c) => c.tool !== 'get_page_title')), [
      { tool: 'place_order', lamp: 'Brass desk lamp' },
      { tool: 'cancel_order', lamp: 'Brass desk lamp' },
    ]);
    assert.equal(await page.locator(W.note).filter({ hasText: 'You allowed' }).count(), 2);
    assert.deepEqual(errors, []);
    assert.deepEqual(logged.filter((l) => /^(error|warning):/.test(l)), []);
  } finally {
    await context.close();
  }
});

test('polyfill without preload.js: a destructive tool registered after the widget has loaded asks the visitor', async () => {
  const { context, page, errors } = await openShop();
  try {
    await registerCancelOrder(page);
    assert.deepEqual(await confirmHints(page, ['cancel_order']), [['cancel_order', true, false]]);
    await ask(page, 'cancel the order');
    await page.locator(W.confirm).waitFor();
    await page.locator(W.confirmCancel).click();
    await page.locator(W.note).filter({ hasText: 'You declined Cancel order.' }).waitFor();
    await waitIdle(page);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__calls.filter((c) => c.tool === 'cancel_order')), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('preload.js before the polyfill: the polyfill steps aside and byomcp\'s document.modelContext serves the page', async () => {
  const { context, page, errors } = await openShop('?polyfill=1&preload=before');
  try {
    assert.equal(await page.evaluate(() => /** @type {any} */ (document).modelContext === /** @type {any} */ (window).byomcp.modelContext), true);
    assert.equal(await page.evaluate(() => /** @type {any} */ (document).modelContext.__isWebMCPPolyfill), undefined);
    await registerCancelOrder(page);
    assert.deepEqual(await confirmHints(page, ['place_order', 'cancel_order']), [
      ['place_order', false, true],
      ['cancel_order', true, false],
    ]);
    await confirmCall(page, 'order it', 'Place order', 'Ordered: Brass desk lamp');
    // The page's declarative form works through ours.
    await ask(page, 'find lamps for me');
    await page.locator(W.text).filter({ hasText: 'Brass desk lamp ($45)' }).waitFor();
    await waitIdle(page);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
