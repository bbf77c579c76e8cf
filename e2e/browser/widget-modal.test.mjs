// What a visitor met in real Chromium (an outside tester's report): on a phone the full-screen
// panel let Tab wander to page links hidden under it and left the page to assistive technology;
// a message over the agent's 32 KiB limit was sent anyway, failed, offered a Retry that could
// never work and emptied the message box; the confirmation card told a touch phone with no
// keyboard "Enter confirms, Escape cancels"; and the launcher, the page's last Tab stop, could
// only be reached after every other one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, newPage, ask, openWidget, waitIdle, waitConnected, W } from './harness.mjs';
import { lastUserText, toolResultsSinceUser } from './fake-openai.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const DESKTOP = { viewport: { width: 1280, height: 800 } };

function script(body) {
  const user = lastUserText(body);
  const results = toolResultsSinceUser(body);
  if (/call me back/.test(user) && results.length === 0) return { toolCalls: [{ name: 'request_callback', arguments: { fullName: 'Ada Lovelace' } }] };
  if (/paint/.test(user) && results.length === 0) return { toolCalls: [{ name: 'paint_page', arguments: { color: 'red' } }] };
  if (results.length > 0) return { text: 'Done.' };
  return { text: `You said ${user.length} characters.` };
}

/** Page tools queued before the widget loads: one that needs consent, one that changes the page. */
function registerTestTools() {
  const w = /** @type {any} */ (window);
  const tools = [
    {
      name: 'request_callback',
      description: 'Asks a salesperson to call the visitor back.',
      inputSchema: { type: 'object', properties: { fullName: { type: 'string' } } },
      annotations: { destructiveHint: true },
      execute: () => 'A salesperson will call.',
    },
    {
      name: 'paint_page',
      description: 'Changes the page colour.',
      inputSchema: { type: 'object', properties: { color: { type: 'string' } } },
      // Runs until the test lets it end (window.__paint()), so the test sees the panel meanwhile.
      execute: ({ color }) =>
        new Promise((resolve) => {
          w.__paint = () => {
            document.body.style.background = color;
            resolve(`The page is ${color} now.`);
          };
        }),
    },
  ];
  /** @type {any} */ (document).modelContext = { __byomcpQueue: tools.map((t) => [t, {}]), registerTool() {} };
}

let stack;
before(async () => {
  stack = await startStack({ script });
});
after(async () => {
  await stack?.close();
});

/** The panel's aria-modal, and which of <html>'s children are inert (by tag or id). */
function modalState(page) {
  return page.evaluate(() => ({
    modal: document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.panel')?.getAttribute('aria-modal'),
    inert: [...document.documentElement.children].filter((n) => /** @type {any} */ (n).inert).map((n) => n.id || n.tagName.toLowerCase()),
  }));
}

/** Where focus is: the widget's element's class name, or the page element's tag. */
function focused(page) {
  return page.evaluate(() => {
    const chat = document.querySelector('byomcp-chat');
    return document.activeElement === chat ? `widget:${chat?.shadowRoot?.activeElement?.className}` : `page:${document.activeElement?.tagName}`;
  });
}

test('on a phone the full-screen panel is a modal dialog: Tab goes round it, the page behind is inert until it closes or becomes the sheet', async () => {
  const context = await stack.browser.newContext(PHONE);
  try {
    await context.addInitScript(registerTestTools);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    // The page's own inert element at the top level stays inert: only what the widget made inert is given back.
    await page.evaluate(() => {
      const own = Object.assign(document.createElement('div'), { id: 'own-inert', inert: true, textContent: 'inert already' });
      document.documentElement.insertBefore(own, document.querySelector('byomcp-chat'));
    });
    assert.deepEqual(await modalState(page), { modal: 'false', inert: ['own-inert'] });
    await openWidget(page);
    assert.deepEqual(await modalState(page), { modal: 'true', inert: ['head', 'body', 'own-inert'] });

    // From the message box, Tab and Shift+Tab stay in the panel and go round it.
    assert.equal(await focused(page), 'widget:input');
    const forward = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      forward.push(await focused(page));
    }
    assert.deepEqual(forward.slice(0, 3), ['widget:send', 'widget:close', 'widget:transcript'], forward.join(' '));
    assert.ok(forward.every((f) => f.startsWith('widget:')), `Tab left the panel: ${forward.join(' ')}`);
    await page.locator('byomcp-chat .close').focus();
    const backward = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Shift+Tab');
      backward.push(await focused(page));
    }
    assert.deepEqual(backward.slice(0, 2), ['widget:send', 'widget:input'], backward.join(' '));
    assert.ok(backward.every((f) => f.startsWith('widget:')), `Shift+Tab left the panel: ${backward.join(' ')}`);

    // While a page tool changes the page the panel is a bottom sheet: the page is usable.
    await ask(page, 'paint the page');
    await page.waitForFunction(() => document.querySelector('byomcp-chat')?.hasAttribute('sheet') && typeof (/** @type {any} */ (window).__paint) === 'function');
    assert.deepEqual(await modalState(page), { modal: 'false', inert: ['own-inert'] });
    await page.evaluate(() => /** @type {any} */ (window).__paint());
    await page.locator(W.text).filter({ hasText: 'Done.' }).waitFor();
    await waitIdle(page);
    // Full screen again once the turn is over: modal again.
    await page.waitForFunction(() => !document.querySelector('byomcp-chat')?.hasAttribute('sheet'));
    assert.deepEqual(await modalState(page), { modal: 'true', inert: ['head', 'body', 'own-inert'] });

    // Escape closes it and gives the page back exactly as it was.
    await page.locator(W.input).focus();
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('byomcp-chat')?.hasAttribute('open'));
    assert.deepEqual(await modalState(page), { modal: 'false', inert: ['own-inert'] });
    assert.equal(await page.evaluate(() => document.body.hasAttribute('inert') || document.head.hasAttribute('inert')), false);
    assert.equal(await focused(page), 'widget:launcher');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('on a wide screen the docked panel is not modal: the page stays usable and Tab goes on to it', async () => {
  const context = await stack.browser.newContext(DESKTOP);
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await openWidget(page);
    assert.equal(await page.locator('byomcp-chat').getAttribute('layout'), 'docked');
    assert.deepEqual(await modalState(page), { modal: 'false', inert: [] });
    await page.locator(W.input).focus();
    await page.keyboard.press('Tab'); // Send
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.match(await focused(page), /^page:/);
    // Narrowed to a phone's width, the same open panel becomes full screen, and modal.
    await page.setViewportSize(PHONE.viewport);
    await page.waitForFunction(() => document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.panel')?.getAttribute('aria-modal') === 'true');
    assert.deepEqual((await modalState(page)).inert, ['head', 'body']);
    await page.setViewportSize(DESKTOP.viewport);
    await page.waitForFunction(() => document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.panel')?.getAttribute('aria-modal') === 'false');
    assert.deepEqual((await modalState(page)).inert, []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a message over 32 KiB is refused before it is sent: it stays in the box, the limit is said, no Retry', async () => {
  const context = await stack.browser.newContext(PHONE);
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    const before = stack.fake.requests.length;
    const errorsShown = () => page.locator('byomcp-chat .error').allInnerTexts();
    for (const [long, what] of [
      ['x'.repeat(40000), '40,000 letters'],
      ['é'.repeat(20000), '20,000 letters of 2 bytes'],
    ]) {
      await ask(page, long);
      await page.locator('byomcp-chat .error').waitFor();
      assert.deepEqual(await errorsShown(), ['That message is too long: at most 32,768 characters (fewer with accents, emoji or other scripts).'], what);
      assert.equal(await page.locator(W.input).inputValue(), long, `${what}: the message box keeps it`);
      assert.equal(await page.locator(W.user).count(), 0, `${what}: no message bubble`);
      assert.equal(await page.locator('byomcp-chat .retry').count(), 0, `${what}: no Retry`);
      // Sending it again says so again, once.
      await page.locator(W.input).press('Enter');
      assert.equal((await errorsShown()).length, 1);
    }
    assert.equal(stack.fake.requests.length, before, 'nothing reached the model');
    // Exactly at the limit it goes, and the error goes with it.
    await ask(page, 'y'.repeat(32768));
    await page.locator(W.text).filter({ hasText: 'You said 32768 characters.' }).waitFor();
    await waitIdle(page);
    assert.deepEqual(await errorsShown(), []);
    assert.equal(await page.locator(W.input).inputValue(), '');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

for (const [name, screen, hint] of [
  ['a touch phone', PHONE, false],
  ['a desktop with a mouse', DESKTOP, true],
]) {
  test(`the confirmation card's keyboard hint shows only where a keyboard is likely (${name})`, async () => {
    const context = await stack.browser.newContext(screen);
    try {
      await context.addInitScript(registerTestTools);
      const { page, errors } = await newPage(context);
      await page.goto(stack.server.url + '/');
      await waitConnected(page);
      await ask(page, 'please call me back');
      const card = page.locator(W.confirm);
      await card.waitFor();
      assert.equal(await card.locator('.confirm-hint').isVisible(), hint);
      assert.equal((await card.innerText()).includes('Enter confirms'), hint);
      await card.locator('.btn-primary').click();
      await page.locator(W.text).filter({ hasText: 'Done.' }).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test('the launcher, last in the page, is one Shift+Tab away once the page has loaded', async () => {
  const context = await stack.browser.newContext(DESKTOP);
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await page.keyboard.press('Shift+Tab');
    assert.equal(await focused(page), 'widget:launcher');
    await page.keyboard.press('Enter');
    await page.locator(W.input).waitFor({ state: 'visible' });
    assert.equal(await focused(page), 'widget:input');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
