// Accessibility of every demo page with the widget (issue 19, point 8): axe-core, which also
// checks the widget's open shadow root, finds no violation on any page, with the panel closed
// and open, on a desktop (1280x800) and a phone (390x844).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, newPage, waitConnected, openWidget, axeViolations, waitIdle, W } from './harness.mjs';
import { toolResultsSinceUser, toolNames } from './fake-openai.mjs';

/** Calls the page's look_up tool once, then answers. */
function script(body) {
  if (toolNames(body).includes('look_up') && toolResultsSinceUser(body).length === 0) {
    return { toolCalls: [{ name: 'look_up', arguments: { topic: 'warranty' } }] };
  }
  return { text: 'Here you are: the **warranty** covers 12 months.' };
}

const PAGES = ['/', '/car.html?id=1', '/test-drive.html', '/financing.html'];
const SCREENS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
];

let stack;
before(async () => {
  stack = await startStack({ script });
});
after(async () => {
  await stack?.close();
});

for (const screen of SCREENS) {
  test(`axe-core: no violations on the demo pages, panel closed and open (${screen.name})`, async () => {
    const context = await stack.browser.newContext({ viewport: screen.viewport, isMobile: screen.isMobile, hasTouch: screen.isMobile, reducedMotion: 'reduce' });
    try {
      // A read-only page tool with a long result, registered before the widget loads (the
      // pre-load queue), so a scrolling result box is part of what axe checks.
      await context.addInitScript(() => {
        const long = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of the warranty terms.`).join('\n');
        const tool = {
          name: 'look_up',
          description: 'Looks up a topic.',
          inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
          annotations: { readOnlyHint: true },
          execute: () => long,
        };
        /** @type {any} */ (document).modelContext = { __byomcpQueue: [[tool, {}]], registerTool() {} };
      });
      /** @type {Record<string, unknown>} */
      const found = {};
      for (const path of PAGES) {
        const { page, errors } = await newPage(context);
        await page.goto(stack.server.url + path);
        await waitConnected(page);
        const closed = await axeViolations(page);
        if (closed.length) found[`${path} closed`] = closed;
        await openWidget(page);
        // A tool result box (it scrolls) and the labels around it are part of what axe checks.
        await page.evaluate(() => /** @type {any} */ (window).byomcp.element.send('What does the warranty cover?'));
        await page.locator(W.text).filter({ hasText: 'covers 12 months' }).waitFor();
        await waitIdle(page);
        assert.match(await page.locator('byomcp-chat .log').innerText(), /look up/i, 'the tool ran');
        await page.locator(`${W.tool} summary`).last().click();
        await page.locator(`${W.tool} .result`).first().waitFor();
        const open = await axeViolations(page);
        if (open.length) found[`${path} open`] = open;
        assert.deepEqual(errors, []);
        await page.close();
      }
      assert.deepEqual(found, {}, JSON.stringify(found, null, 1));
    } finally {
      await context.close();
    }
  });
}
