// The Lamp Shop (a page written for WebMCP) with the byomcp widget alone: our
// document.modelContext serves its imperative tools, and its <form toolname> forms become tools
// that follow the DOM (MutationObserver, open shadow roots), fill the controls, submit with
// toolautosubmit (SubmitEvent.agentInvoked / respondWith), report validation failures by field,
// and leave forms without toolautosubmit for the visitor to send. consequentialHint asks first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, ask, waitIdle, waitTurnEnds, W } from './harness.mjs';
import { toolResultsSinceUser } from './fake-openai.mjs';
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

function openShop() {
  return openShopPage(stack, site);
}

/** Asks, waits for the answer, returns its text and the tool result the model got. */
async function askAndAnswer(page, text) {
  await ask(page, text);
  await page.locator(W.text).filter({ hasText: 'Result:' }).last().waitFor();
  await waitIdle(page);
  const [result] = toolResultsSinceUser(stack.fake.requests.at(-1).body);
  return { answer: await page.locator(W.text).last().innerText(), result: result?.content ?? '' };
}

/** The agent's view of the page's tools. */
const agentTools = (page) => page.evaluate(() => /** @type {any} */ (window).byomcp.host.listTools());

test('our modelContext: imperative and declarative tools, getTools shaped as the draft', async () => {
  const { context, page, errors } = await openShop();
  try {
    const tools = await page.evaluate(async () => (await /** @type {any} */ (document).modelContext.getTools()).map((t) => ({ name: t.name, origin: t.origin, same: t.window === window, schema: t.inputSchema })));
    assert.deepEqual(tools.map((t) => t.name), ['check_stock', 'contact_us', 'get_page_title', 'place_order', 'search_catalog']);
    assert.ok(tools.every((t) => t.origin === site.url && t.same));
    const search = tools.find((t) => t.name === 'search_catalog');
    assert.deepEqual(search.schema, {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to match in the lamp names' },
        // The options' text is not their value: labelled, as @mcp-b/webmcp-polyfill labels them.
        category: { type: 'string', oneOf: [{ const: 'lighting', title: 'Lighting' }, { const: 'furniture', title: 'Furniture' }] },
        max_price: { type: 'integer', minimum: 0, maximum: 1000 },
      },
      required: ['query'],
    });

    const title = await askAndAnswer(page, 'what is the page title?');
    assert.match(title.answer, /Lamp Shop \(WebMCP test page\)/);

    const found = await askAndAnswer(page, 'find lamps for me');
    assert.match(found.answer, /Brass desk lamp \(\$45\)/, 'the respondWith value reached the answer');
    assert.deepEqual(await page.locator('#results li').allInnerTexts(), ['Brass desk lamp']);
    assert.equal(await page.locator('#q').inputValue(), 'lamp');
    const calls = await page.evaluate(() => /** @type {any} */ (window).__calls.map((c) => c.tool + (c.agentInvoked === undefined ? '' : `:${c.agentInvoked}`)));
    assert.deepEqual(calls, ['get_page_title', 'search_catalog:true']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a form that fails validation is a tool error naming the field; nothing is submitted', async () => {
  const { context, page, errors } = await openShop();
  try {
    const { result } = await askAndAnswer(page, 'forbidden lamps please');
    assert.match(result, /status="error"/);
    assert.match(result, /query: That word is not sold here/);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__calls), [], 'the submit handler never ran');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('without toolautosubmit the form is filled and left for the visitor to send', async () => {
  const { context, page, errors } = await openShop();
  try {
    const { result } = await askAndAnswer(page, 'contact me please');
    assert.match(result, /not submitted/);
    assert.match(result, /press "Send message"/);
    assert.equal(await page.locator('#contact input[name="name"]').inputValue(), 'Ada');
    assert.equal(await page.locator('#contact input[name="email"]').inputValue(), 'ada@example.com');
    assert.equal(await page.locator('#sent').isVisible(), false, 'the agent did not send it');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('consequentialHint asks the visitor before the tool runs', async () => {
  const { context, page, errors } = await openShop();
  try {
    await ask(page, 'order it now');
    await page.locator(W.confirm).waitFor();
    // The card names the tool as a visitor reads it (point 4 of issue 19): "place_order" as "Place order".
    assert.match(await page.locator(W.confirm).innerText(), /Place order/);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__calls), [], 'nothing ran before the visitor confirmed');
    await page.locator(W.confirmOk).click();
    await page.locator(W.text).filter({ hasText: 'Ordered: Brass desk lamp' }).waitFor();
    await waitIdle(page);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__calls), [{ tool: 'place_order', lamp: 'Brass desk lamp' }]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('declarative tools follow the DOM: removed, renamed, and inside an open shadow root', async () => {
  const { context, page, errors } = await openShop();
  try {
    const names = async () => (await agentTools(page)).map((t) => t.name).sort();
    await page.evaluate(() => document.getElementById('contact').remove());
    await page.waitForFunction(() => !/** @type {any} */ (window).byomcp.host.has('contact_us'));
    await page.evaluate(() => document.getElementById('search').setAttribute('toolname', 'find_lamps'));
    await page.waitForFunction(() => /** @type {any} */ (window).byomcp.host.has('find_lamps'));
    await page.evaluate(() => {
      const hostEl = document.createElement('div');
      document.body.append(hostEl);
      const root = hostEl.attachShadow({ mode: 'open' });
      root.innerHTML = '<form toolname="subscribe" tooldescription="Subscribe to the newsletter."><input name="email" type="email" required><label><input type="checkbox" name="weekly"> Weekly</label><button>Go</button></form>';
    });
    await page.waitForFunction(() => /** @type {any} */ (window).byomcp.host.has('subscribe'));
    assert.deepEqual(await names(), ['check_stock', 'find_lamps', 'get_page_title', 'place_order', 'subscribe']);
    const subscribe = (await agentTools(page)).find((t) => t.name === 'subscribe');
    assert.deepEqual(subscribe.inputSchema, {
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, weekly: { type: 'boolean', description: 'Weekly' } },
      required: ['email'],
    });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Stop aborts the signal of the running tool', async () => {
  const { context, page, errors } = await openShop();
  try {
    await ask(page, 'check stock please');
    await page.waitForFunction(() => /** @type {any} */ (window).__stockSignal instanceof AbortSignal);
    assert.equal(await page.evaluate(() => /** @type {any} */ (window).__stockSignal.aborted), false);
    await page.locator(W.stop).click();
    const [end] = await waitTurnEnds(page, 1);
    assert.equal(end.stopReason, 'cancelled');
    await page.waitForFunction(() => /** @type {any} */ (window).__stockSignal.aborted === true);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
