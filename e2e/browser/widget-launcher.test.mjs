// The launcher comes before the panel's code (issue 19, point 12): widget.js imports nothing,
// shows the launcher as soon as it has run and loads the rest behind it. A visitor who clicks
// the launcher before the rest has arrived gets the panel as soon as it is there; one who
// only focused it keeps the focus on it. The panel's code is held back here by holding the
// requests for the files widget.js imports (boot's and its chunks: every /byomcp/ file but
// widget.js and preload.js) until the test lets them go.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, newPage, waitConnected, W } from './harness.mjs';

let stack;
before(async () => {
  stack = await startStack({ script: () => ({ text: 'ok' }) });
});
after(async () => {
  await stack?.close();
});

/**
 * Holds every request for a /byomcp/ file other than widget.js and preload.js (the panel's
 * code, which widget.js imports) until release() is called.
 * @param {import('playwright-core').Page} page
 */
async function holdPanelCode(page) {
  let release = () => {};
  const released = new Promise((resolve) => {
    release = () => resolve(undefined);
  });
  let held = 0;
  await page.route('**/byomcp/**', async (route) => {
    if (/\/byomcp\/(widget|preload)\.js$/.test(new URL(route.request().url()).pathname)) {
      await route.continue();
      return;
    }
    held++;
    await released;
    await route.continue();
  });
  return { release, held: () => held };
}

/**
 * Loads the demo in a fresh context with the panel's code held (holdPanelCode), waits for the
 * launcher, runs fn, then closes the context.
 * @param {(t: {page: import('playwright-core').Page, errors: string[], hold: {release: () => void, held: () => number}}) => Promise<void>} fn
 */
async function withPanelHeld(fn) {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    const hold = await holdPanelCode(page);
    await page.goto(stack.server.url + '/');
    await page.locator(W.launcher).waitFor({ state: 'visible' });
    await fn({ page, errors, hold });
  } finally {
    await context.close();
  }
}

/** @param {import('playwright-core').Page} page */
function widgetState(page) {
  return page.evaluate(() => {
    const el = document.querySelector('byomcp-chat');
    const root = el?.shadowRoot;
    return {
      open: el?.hasAttribute('open') ?? false,
      panel: !!root?.querySelector('.panel'),
      focus: root?.activeElement?.className ?? null,
      label: root?.querySelector('.launcher')?.getAttribute('aria-label') ?? null,
    };
  });
}

test('a click on the launcher before the panel code has arrived opens the panel once it is there', async () => {
  await withPanelHeld(async ({ page, errors, hold }) => {
    // The launcher is there while the panel's code is not.
    await page.waitForFunction(() => performance.getEntriesByName('byomcp:launcher').length > 0);
    assert.ok(hold.held() > 0, 'the panel code was asked for and is held');
    assert.deepEqual(await widgetState(page), { open: false, panel: false, focus: null, label: 'Open the assistant' });

    await page.locator(W.launcher).click();
    assert.equal(await page.locator(W.launcher).getAttribute('aria-busy'), 'true', 'the launcher says it is getting ready');
    hold.release();
    await waitConnected(page);
    await page.locator(W.input).waitFor({ state: 'visible' });
    const state = await widgetState(page);
    assert.equal(state.open, true, 'the panel opened');
    assert.equal(state.panel, true);
    assert.equal(state.focus, 'input', 'the message box has the focus, as after a click on a loaded launcher');
    assert.deepEqual(errors, []);
  });
});

test('the launcher focused before the panel code has arrived keeps the focus, and the panel stays closed', async () => {
  await withPanelHeld(async ({ page, errors, hold }) => {
    await page.locator(W.launcher).focus();
    hold.release();
    await waitConnected(page);
    await page.waitForFunction(() => !!document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.panel'));
    const state = await widgetState(page);
    assert.equal(state.open, false, 'the panel stays closed');
    assert.equal(state.focus, 'launcher', 'the (upgraded) launcher has the focus');
    assert.equal(await page.locator(W.launcher).getAttribute('aria-expanded'), 'false');
    // The launcher works as usual afterwards.
    await page.keyboard.press('Enter');
    await page.locator(W.input).waitFor({ state: 'visible' });
    assert.deepEqual(errors, []);
  });
});
