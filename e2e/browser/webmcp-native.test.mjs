// The Lamp Shop (a page written for WebMCP) under Chromium's own document.modelContext
// (Debian's Chromium has it behind --enable-features=WebMCP), with preload.js loaded first: an
// imperative tool, a declarative form with toolautosubmit answered by respondWith, forms the
// visitor sends (one in a shadow root), a tool whose consequentialHint asks the visitor, and
// Stop while a tool runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, launchBrowser, ask, waitIdle, waitTurnEnds, W } from './harness.mjs';
import { startWebMCPSite, shopScript, openShopPage } from './webmcp-pages.mjs';

let stack;
let site;
/** @type {import('playwright-core').Browser} */
let browser;
before(async () => {
  stack = await startStack({ script: shopScript });
  site = await startWebMCPSite(stack.server.url);
  browser = await launchBrowser(['--enable-features=WebMCP']);
});
after(async () => {
  await browser?.close();
  await site?.close();
  await stack?.close();
});

/**
 * Asks, and returns the answer once the turn is over.
 * @param {import('playwright-core').Page} page
 * @param {string} question
 */
async function answer(page, question) {
  const turns = await page.locator(W.turns).count();
  await ask(page, question);
  await page.locator(W.turns).nth(turns).locator(W.text.replace('byomcp-chat ', '')).filter({ hasText: 'Result:' }).waitFor();
  await waitIdle(page);
  return page.locator(W.text).last().innerText();
}

test("the Lamp Shop's tools under Chromium's own document.modelContext", async (t) => {
  const { context, page, errors } = await openShopPage({ browser }, site, '?preload=after');
  try {
    const native = await page.evaluate(() => {
      const mc = /** @type {any} */ (document).modelContext;
      return !mc[Symbol.for('byomcp.modelContext')] && /\[native code\]/.test(Function.prototype.toString.call(Object.getPrototypeOf(mc).executeTool));
    });
    if (!native) {
      t.skip(`this Chromium (${browser.version()}) has no document.modelContext with --enable-features=WebMCP`);
      return;
    }
    // A form the visitor sends, in an open shadow root, where Chromium finds forms too.
    await page.evaluate(() => {
      const host = document.body.appendChild(document.createElement('div'));
      host.attachShadow({ mode: 'open' }).innerHTML =
        '<form toolname="call_back" tooldescription="Ask to be called back."><input name="phone" required><button>Call me</button></form>';
    });
    await page.waitForFunction(() => /** @type {any} */ (window).byomcp.host.has('call_back'));
    assert.match(await answer(page, 'what is the page title?'), /Lamp Shop \(WebMCP test page\)/);
    // toolautosubmit: Chromium fills the form, submits it (agentInvoked) and resolves with the
    // page's respondWith value.
    assert.match(await answer(page, 'find lamps for me'), /Brass desk lamp \(\$45\)/);
    assert.deepEqual(await page.locator('#results li').allInnerTexts(), ['Brass desk lamp']);
    // Without toolautosubmit: filled, answered at once, left to the visitor.
    assert.match(await answer(page, 'contact me please'), /not submitted: it waits for the visitor to check it and press "Send message"/);
    assert.equal(await page.locator('#contact input[name="email"]').inputValue(), 'ada@example.com');
    assert.equal(await page.locator('#sent').isVisible(), false, 'the agent did not send it');
    // The same in an open shadow root (added at the start, so that the agent has listed it by now).
    assert.match(await answer(page, 'call me back'), /Filled phone in the form "call_back"\. The form was not submitted: it waits for the visitor to check it and press "Call me"/);
    // consequentialHint: the visitor is asked first (Chromium reports the hint, preload.js noted it).
    await ask(page, 'order it');
    await page.locator(W.confirm).waitFor();
    await page.locator(W.confirmOk).click();
    await page.locator(W.text).filter({ hasText: 'Ordered: Brass desk lamp' }).waitFor();
    await waitIdle(page);
    // Stop while a tool runs: the call's signal aborts Chromium's executeTool.
    const ended = (await waitTurnEnds(page, 4)).length;
    await ask(page, 'check stock please');
    await page.waitForFunction(() => /** @type {any} */ (window).__calls.some((c) => c.tool === 'check_stock'));
    await page.locator(W.stop).click();
    const ends = await waitTurnEnds(page, ended + 1);
    assert.equal(ends.at(-1).stopReason, 'cancelled');
    await page.waitForFunction(() => /** @type {any} */ (window).__stockSignal?.aborted === true);
    assert.deepEqual(
      await page.evaluate(() => /** @type {any} */ (window).__calls.map((c) => c.tool)),
      ['get_page_title', 'search_catalog', 'place_order', 'check_stock'],
    );
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
