// What a visitor meets in the widget (issue 19, points 1-7): a confirmation card that is
// readable, in view and answerable from the keyboard; a transcript that follows the answer
// unless the visitor scrolled up; a lost network noticed within seconds, with the message sent
// when it is back; a docked panel that narrows the page on wide screens and a bottom sheet on
// phones while a page tool runs; restored tool results as plain text and "Stopped." after a
// reload; a declined call that reads as declined, not failed, also after a reload, and an
// allowed one that keeps its "You allowed" note; focus kept in
// the composer on Stop; touch targets of at least 44 px on a phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, startProxy, recordClientEvents, newPage, ask, openWidget, waitIdle, waitConnected, WAIT_MS, W } from './harness.mjs';
import { lastUserText, toolResultsSinceUser } from './fake-openai.mjs';

const LONG = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1}: a sentence about the car that fills a line or two of the panel.\n`).join('\n');
const SLOW = Array.from({ length: 50 }, (_, i) => `Slow fact ${i + 1}.`).join(' ');

function script(body) {
  const user = lastUserText(body);
  const results = toolResultsSinceUser(body);
  if (/call me back/.test(user) && results.length === 0) {
    return { toolCalls: [{ name: 'request_callback', arguments: { fullName: 'Ada Lovelace', annualIncome: 85000, newsletter: true } }] };
  }
  const pick = /pick (red|blue)/.exec(user);
  if (pick && results.length === 0) return { toolCalls: [{ name: 'paint_page', arguments: { color: pick[1] } }] };
  if (/tell me everything/.test(user)) return { text: LONG, chunkSize: 40, delayMs: 15 };
  if (/slowly/.test(user)) return { text: SLOW, chunkSize: 4, delayMs: 60 };
  if (results.length > 0) return { text: `Done: ${/\n([\s\S]*)\n<\/tool_output>/.exec(results[results.length - 1].content)?.[1] ?? ''}` };
  return { text: `You said: ${user}` };
}

/**
 * What the widget's client did (recordClientEvents' trace: each state, its time and reconnect
 * delay) and what the proxy refused and passed on: why a reconnect a test waits for did not come.
 * @param {import('playwright-core').Page} page
 * @param {{counts: () => object}} proxy
 * @param {string} at
 */
async function clientTrace(page, proxy, at) {
  const states = await page.evaluate(() => /** @type {any} */ (window).__trace);
  return `${at}: ${states.join(', ')}; proxy ${JSON.stringify(proxy.counts())}`;
}

/** Page tools registered before the widget loads (the pre-load queue): one that needs consent. */
function registerTestTools() {
  const w = /** @type {any} */ (window);
  w.__called = [];
  const tools = [
    {
      name: 'request_callback',
      description: 'Asks a salesperson to call the visitor back.',
      inputSchema: {
        type: 'object',
        properties: {
          fullName: { type: 'string', title: 'Your name' },
          annualIncome: { type: 'number', description: 'Yearly income before tax, in dollars' },
          newsletter: { type: 'boolean' },
        },
      },
      annotations: { destructiveHint: true },
      execute: (args) => {
        w.__called.push(args);
        return 'A salesperson will call.';
      },
    },
    {
      name: 'paint_page',
      description: 'Changes the page colour.',
      inputSchema: { type: 'object', properties: { color: { type: 'string' } } },
      execute: async ({ color }) => {
        // Long enough for the test to see the panel while the page changes (window.__paintMs).
        await new Promise((r) => setTimeout(r, w.__paintMs ?? 300));
        const chat = document.querySelector('byomcp-chat');
        w.__sheetDuringCall = chat?.hasAttribute('sheet');
        w.__panelTopDuringCall = chat?.shadowRoot?.querySelector('.panel')?.getBoundingClientRect().top;
        document.body.style.background = color;
        return `The page is ${color} now.`;
      },
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

/** @param {import('playwright-core').Page} page */
function shadowActive(page) {
  return page.evaluate(() => document.querySelector('byomcp-chat')?.shadowRoot?.activeElement?.className ?? document.activeElement?.tagName);
}

/** How far the transcript is from its end, in px, after layout has settled. */
function distanceFromEnd(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) =>
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            const t = /** @type {HTMLElement} */ (document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.transcript'));
            resolve(t.scrollHeight - t.scrollTop - t.clientHeight);
          }),
        ),
      ),
  );
}

for (const screen of [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
]) {
  test(`the confirmation card is readable, fully in view, focused, and answered with Enter or Escape (${screen.name})`, async () => {
    const context = await stack.browser.newContext({ viewport: screen.viewport, isMobile: screen.isMobile, hasTouch: screen.isMobile });
    try {
      await context.addInitScript(registerTestTools);
      const { page, errors } = await newPage(context);
      await page.goto(stack.server.url + '/');
      await waitConnected(page);
      // A few turns first, so the card comes at the end of a transcript that scrolls.
      for (const q of ['tell me everything', 'and again tell me everything']) {
        await ask(page, q);
        await waitIdle(page);
      }
      await ask(page, 'please call me back');
      const card = page.locator(W.confirm);
      await card.waitFor();
      // Readable: the tool as a phrase, the arguments as labelled values from the schema.
      assert.equal(await card.locator('.confirm-action').innerText(), 'Request callback');
      const rows = await card.locator('dt').evaluateAll((dts) => dts.map((dt) => [dt.firstChild?.textContent, dt.querySelector('small')?.textContent ?? '', dt.nextElementSibling?.textContent]));
      assert.deepEqual(rows, [
        ['Your name', '', 'Ada Lovelace'],
        ['Annual income', 'Yearly income before tax, in dollars', '85,000'],
        ['Newsletter', '', 'Yes'],
      ]);
      assert.doesNotMatch(await card.innerText(), /fullName|annualIncome|request_callback|\{/);
      // In view: inside the transcript's visible area (not under the composer) and the window.
      await page.waitForFunction(() => {
        const root = document.querySelector('byomcp-chat')?.shadowRoot;
        const c = root?.querySelector('.confirm')?.getBoundingClientRect();
        const t = root?.querySelector('.transcript')?.getBoundingClientRect();
        const composer = root?.querySelector('.composer')?.getBoundingClientRect();
        return !!c && !!t && !!composer && c.top >= t.top - 1 && c.bottom <= t.bottom + 1 && c.bottom <= composer.top + 1 && c.bottom <= innerHeight;
      }, null, { timeout: 5000 });
      // Focused, and Enter confirms.
      assert.equal(await shadowActive(page), 'confirm');
      await page.keyboard.press('Enter');
      await page.locator(W.text).filter({ hasText: 'A salesperson will call' }).waitFor();
      assert.equal(await page.evaluate(() => /** @type {any} */ (window).__called.length), 1);
      await waitIdle(page);

      // Escape cancels, and leaves the panel open.
      await ask(page, 'call me back again');
      await card.waitFor();
      assert.equal(await shadowActive(page), 'confirm');
      await page.keyboard.press('Escape');
      await page.locator(W.note).filter({ hasText: 'You declined Request callback' }).waitFor();
      await waitIdle(page);
      assert.equal(await page.evaluate(() => /** @type {any} */ (window).__called.length), 1);
      assert.equal(await page.locator('byomcp-chat').getAttribute('open'), '');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test('the transcript follows the answer to its end, unless the visitor scrolls up: then a "new messages" button', async () => {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'tell me everything');
    await waitIdle(page);
    assert.ok((await distanceFromEnd(page)) <= 1, `after the answer the transcript is ${await distanceFromEnd(page)} px from its end`);

    await ask(page, 'now slowly please');
    await page.locator(W.text).filter({ hasText: 'Slow fact 2.' }).waitFor();
    await page.locator('byomcp-chat .transcript').hover();
    await page.mouse.wheel(0, -600);
    await page.locator('byomcp-chat .new-messages').waitFor({ state: 'visible' });
    await page.locator(W.text).filter({ hasText: 'Slow fact 10.' }).waitFor();
    assert.ok((await distanceFromEnd(page)) > 100, 'the transcript stays where the visitor scrolled');
    await page.locator('byomcp-chat .new-messages').click();
    await waitIdle(page);
    assert.ok((await distanceFromEnd(page)) <= 1, 'back at the end after "new messages"');
    assert.equal(await page.locator('byomcp-chat .new-messages').isVisible(), false);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a network that goes silent mid-answer is noticed within seconds, and the answer completes once it is back', async () => {
  const proxy = await startProxy(stack.server.url);
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(proxy.url + '/');
    await waitConnected(page);
    await ask(page, 'tell me slowly');
    await page.locator(W.text).filter({ hasText: 'Slow fact 3.' }).waitFor();
    proxy.pause();
    // The socket still looks open; the widget's keep-alive finds out (bounded wait, well under
    // the minutes a dead TCP connection takes to close).
    await page.waitForFunction(() => document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.status')?.getAttribute('data-state') !== 'open', null, { timeout: 12000 });
    assert.equal(await page.locator('byomcp-chat .banner').isVisible(), true);
    const atResume = await clientTrace(page, proxy, 'at resume');
    proxy.resume();
    try {
      await page.waitForFunction(() => /** @type {any} */ (window).byomcp.client.state === 'open', null, { timeout: WAIT_MS });
    } catch (err) {
      throw new Error(`${err}\n${atResume}\n${await clientTrace(page, proxy, 'now')}`); // why it did not come back (it failed once in CI)
    }
    await waitIdle(page);
    const shown = await page.locator(W.text).last().innerText();
    assert.equal(shown.trim(), SLOW, 'the whole answer, exactly once');
    assert.equal(await page.locator('byomcp-chat .banner').isVisible(), false);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await proxy.close();
  }
});

test('offline: the banner says so at once, the message waits (no typing dots) and is sent when back online', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await openWidget(page);
    await context.setOffline(true);
    await page.locator('byomcp-chat .banner').filter({ hasText: 'offline' }).waitFor({ timeout: 5000 });
    assert.notEqual(await page.locator(W.status).getAttribute('data-state'), 'open');
    await page.locator(W.input).fill('are you there');
    await page.locator(W.input).press('Enter');
    await page.locator('byomcp-chat .queued').waitFor();
    assert.equal(await page.locator('byomcp-chat .thinking').count(), 0, 'no typing dots while the message waits');
    assert.equal(await page.locator(W.user).last().innerText(), 'are you there');
    await context.setOffline(false);
    await page.locator(W.text).filter({ hasText: 'You said: are you there' }).waitFor();
    await waitIdle(page);
    assert.equal(await page.locator('byomcp-chat .queued').count(), 0);
    assert.equal(await page.locator('byomcp-chat .banner').isVisible(), false);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('an agent that cannot be reached is not "you are offline": the message waits and is sent when it is back', async () => {
  const proxy = await startProxy(stack.server.url);
  const context = await stack.browser.newContext();
  try {
    // What the client did, to tell why if the answer never comes (window.__trace).
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(proxy.url + '/');
    await waitConnected(page);
    await openWidget(page);
    proxy.pause(); // new connections refused
    proxy.dropAll();
    await page.waitForFunction(() => document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.status')?.getAttribute('data-state') !== 'open');
    await page.locator(W.input).fill('are you there');
    await page.locator(W.input).press('Enter');
    await page.locator('byomcp-chat .queued').waitFor();
    const banner = await page.locator('byomcp-chat .banner').innerText();
    assert.match(banner, /cannot be reached/);
    assert.doesNotMatch(banner, /offline/i);
    const atResume = await clientTrace(page, proxy, 'at resume');
    proxy.resume();
    // The next try comes within the waiting backoff (4 s) and an origin check that may have
    // been left hanging while the proxy was paused (5 s): a loaded CI machine needs more than
    // the usual wait for the answer.
    try {
      await page.locator(W.text).filter({ hasText: 'You said: are you there' }).waitFor({ timeout: 3 * WAIT_MS });
    } catch (err) {
      throw new Error(`${err}\n${atResume}\n${await clientTrace(page, proxy, 'now')}`);
    }
    await waitIdle(page);
    assert.equal(await page.locator('byomcp-chat .banner').isVisible(), false);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await proxy.close();
  }
});

test('wide screens dock the panel beside the page, which narrows instead of being covered', async () => {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    const before = await page.evaluate(() => document.querySelector('main')?.getBoundingClientRect().right ?? 0);
    await openWidget(page);
    assert.equal(await page.locator('byomcp-chat').getAttribute('layout'), 'docked');
    // Full height at the right edge, and the page's content ends where the panel begins (waited
    // for: the panel slides in).
    await page.waitForFunction(() => {
      const panel = document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.panel')?.getBoundingClientRect();
      const main = document.querySelector('main')?.getBoundingClientRect();
      return !!panel && !!main && main.right <= panel.left + 1 && panel.top === 0 && panel.bottom === 800 && panel.right === 1280;
    });
    await page.locator(W.launcher).evaluate(() => /** @type {any} */ (window).byomcp.element.close());
    await page.waitForFunction((b) => (document.querySelector('main')?.getBoundingClientRect().right ?? 0) >= b - 1, before);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('on a phone the panel becomes a bottom sheet while a page tool changes the page', async () => {
  const context = await stack.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    await context.addInitScript(registerTestTools);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await openWidget(page);
    await fullScreen(page);
    await ask(page, 'pick red for the page');
    await page.locator(W.text).filter({ hasText: 'Done: The page is red now.' }).waitFor();
    assert.equal(await page.evaluate(() => /** @type {any} */ (window).__sheetDuringCall), true, 'a bottom sheet while the tool ran');
    const top = await page.evaluate(() => /** @type {any} */ (window).__panelTopDuringCall);
    assert.ok(top > 844 / 3, `the sheet leaves the upper part of the page visible (top ${top})`);
    // Full screen again once the turn is over, without the visitor touching anything.
    await waitIdle(page);
    await fullScreen(page);
    // Back to the full panel when the visitor turns to it while the tool runs (for 3 s here).
    await page.evaluate(() => (/** @type {any} */ (window).__paintMs = 3000));
    await ask(page, 'pick blue for the page');
    await page.waitForFunction(() => document.querySelector('byomcp-chat')?.hasAttribute('sheet'));
    await page.locator(W.input).tap();
    await page.waitForFunction(() => !document.querySelector('byomcp-chat')?.hasAttribute('sheet'));
    await page.locator(W.text).filter({ hasText: 'Done: The page is blue now.' }).waitFor();
    await waitIdle(page);
    await fullScreen(page);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/**
 * Waits (bounded) until the open panel covers the whole 390x844 screen.
 * @param {import('playwright-core').Page} page
 */
async function fullScreen(page) {
  const box = () => page.evaluate(() => JSON.stringify(document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.panel')?.getBoundingClientRect()));
  const want = JSON.stringify({ x: 0, y: 0, width: 390, height: 844, top: 0, right: 390, bottom: 844, left: 0 });
  const full = (/** @type {string} */ w) => JSON.stringify(document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.panel')?.getBoundingClientRect()) === w;
  await page.waitForFunction(full, want, { timeout: 5000 }).catch(async () => assert.fail(`the panel is not full screen: ${await box()}`));
}

test('a phone held sideways gets the screen\'s height, not a card of a few lines above the launcher', async () => {
  const context = await stack.browser.newContext({ viewport: { width: 844, height: 390 }, isMobile: true, hasTouch: true });
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'hello sideways');
    await page.locator(W.text).filter({ hasText: 'You said: hello sideways' }).waitFor();
    // Waited for: the panel slides in.
    await page.waitForFunction(() => {
      const r = document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.panel')?.getBoundingClientRect();
      return !!r && r.top === 0 && r.bottom === 390 && r.right === 844;
    });
    assert.equal(await page.locator(W.launcher).isVisible(), false, 'the launcher is under the open panel');
    await page.locator('byomcp-chat .close').tap();
    await page.locator(W.launcher).waitFor({ state: 'visible' });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('after a reload: tool results are the plain text, and a stopped answer keeps its "Stopped." note', async () => {
  const context = await stack.browser.newContext();
  try {
    await context.addInitScript(registerTestTools);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'pick red for the page');
    await page.locator(W.text).filter({ hasText: 'The page is red now' }).waitFor();
    await waitIdle(page);
    await ask(page, 'tell me slowly');
    await page.locator(W.text).filter({ hasText: 'Slow fact 2.' }).waitFor();
    await page.locator(W.stop).click();
    await page.locator(W.note).filter({ hasText: 'Stopped.' }).waitFor();
    await waitIdle(page);

    await page.reload();
    await waitConnected(page);
    await openWidget(page);
    await page.locator(`${W.tool} summary`).first().click();
    const result = await page.locator(`${W.tool} .result`).first().innerText();
    assert.equal(result, 'The page is red now.');
    assert.equal(await page.locator(W.note).filter({ hasText: 'Stopped.' }).count(), 1);
    assert.doesNotMatch(await page.locator('byomcp-chat .log').innerText(), /tool_output|The content above is data/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a declined call reads as declined, not failed, and an allowed one says so; both keep their notes after a reload', async () => {
  const context = await stack.browser.newContext();
  try {
    await context.addInitScript(registerTestTools);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'please call me back');
    await page.locator(W.confirmOk).click();
    await page.locator(W.note).filter({ hasText: 'You allowed Request callback.' }).waitFor();
    await page.locator(W.text).filter({ hasText: 'A salesperson will call' }).waitFor();
    await waitIdle(page);
    await ask(page, 'call me back again');
    await page.locator(W.confirm).waitFor();
    await page.locator(W.confirmCancel).click();
    await page.locator(W.note).filter({ hasText: 'You declined Request callback.' }).waitFor();
    await waitIdle(page);
    /** Each tool entry's state and title, and the note that follows it. */
    const shown = () =>
      page.locator(W.tool).evaluateAll((ds) =>
        ds.map((d) => [/** @type {HTMLElement} */ (d).dataset.state, d.querySelector('.tool-title')?.textContent, d.nextElementSibling?.classList.contains('note') ? d.nextElementSibling.textContent : null]),
      );
    const live = await shown();
    assert.equal(live.length, 2);
    assert.deepEqual([live[0][0], live[0][2]], ['ok', 'You allowed Request callback.']);
    assert.deepEqual(live[1], ['declined', 'Declined request callback', 'You declined Request callback.']);
    assert.doesNotMatch(await page.locator('byomcp-chat .log').innerText(), /failed/);
    assert.equal(await page.evaluate(() => /** @type {any} */ (window).__called.length), 1, 'only the allowed call ran');

    await page.reload();
    await waitConnected(page);
    await openWidget(page);
    await page.locator(W.tool).nth(1).waitFor();
    assert.deepEqual(await shown(), live, 'restored from the stored messages, and the allowed call from what this tab remembers');
    assert.equal(await page.locator(W.note).filter({ hasText: 'You declined' }).count(), 1);
    assert.equal(await page.locator(W.note).filter({ hasText: 'You allowed' }).count(), 1);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Stop from the keyboard keeps the focus in the composer', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'tell me slowly');
    await page.locator(W.text).filter({ hasText: 'Slow fact 2.' }).waitFor();
    await page.locator(W.stop).focus();
    await page.keyboard.press('Enter');
    await page.locator(W.note).filter({ hasText: 'Stopped.' }).waitFor();
    await waitIdle(page);
    assert.equal(await shadowActive(page), 'input');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('on a phone every control of the widget is at least 44x44 px', async () => {
  const context = await stack.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    await context.addInitScript(registerTestTools);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await openWidget(page);
    // Suggestions, then a turn with a tool row and a confirmation card, all on screen together.
    await page.locator('byomcp-chat .suggestion').first().waitFor();
    const small = async () =>
      page.evaluate(() =>
        [...(document.querySelector('byomcp-chat')?.shadowRoot?.querySelectorAll('button, summary, textarea') ?? [])]
          .filter((el) => el.getClientRects().length > 0)
          .map((el) => ({ el: el.className || el.tagName, w: el.getBoundingClientRect().width, h: el.getBoundingClientRect().height }))
          // Layout sizes are fractional (43.99998 is 44 px laid out at a sub-pixel offset).
          .filter((r) => Math.round(r.w * 100) / 100 < 44 || Math.round(r.h * 100) / 100 < 44),
      );
    assert.deepEqual(await small(), []);
    await ask(page, 'pick red for the page');
    await waitIdle(page);
    await ask(page, 'call me back');
    await page.locator(W.confirm).waitFor();
    assert.deepEqual(await small(), []);
    await page.locator(W.confirmCancel).click();
    await waitIdle(page);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
