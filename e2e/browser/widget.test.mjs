// The widget as a product: keyboard use and screen-reader announcements, safe rendering of
// hostile model text, errors with Retry, rejected page tools, and theming from the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, recordClientEvents, newPage, ask, waitIdle, waitConnected, W } from './harness.mjs';
import { lastUserText } from './fake-openai.mjs';

let failNext = true;

function script(body) {
  const user = lastUserText(body);
  if (/hostile/.test(user)) {
    return {
      text: 'Look: <img src=x onerror="window.__pwned=1"> [click](javascript:window.__pwned=2) **bold** `<b>code</b>` [site](https://example.com/a)',
    };
  }
  if (/flaky/.test(user)) {
    if (failNext) {
      failNext = false;
      return { status: 400 };
    }
    return { text: 'Worked the second time.' };
  }
  return { text: `Line one.\n\nYou said: ${user}` };
}

let stack;
before(async () => {
  stack = await startStack({ script });
});
after(async () => {
  await stack?.close();
});

test('keyboard only: open, send with Enter, newline with Shift+Enter, Escape closes', async () => {
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await page.locator(W.launcher).focus();
    assert.equal(await page.locator(W.launcher).getAttribute('aria-expanded'), 'false');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('byomcp-chat')?.shadowRoot?.activeElement?.tagName === 'TEXTAREA');
    assert.equal(await page.locator(W.launcher).getAttribute('aria-expanded'), 'true');
    await page.keyboard.type('first line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    assert.equal(await page.locator(W.input).inputValue(), 'first line\nsecond line');
    await page.keyboard.press('Enter');
    await page.locator(W.text).filter({ hasText: 'You said: first line' }).waitFor();
    await waitIdle(page);
    assert.equal(await page.locator(W.input).inputValue(), '');
    assert.equal(await page.locator(W.user).innerText(), 'first line\nsecond line');
    // The live region announces the finished answer (once, not token by token).
    await page.waitForFunction(() => /You said: first line/.test(document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('[aria-live="polite"]')?.textContent ?? ''));
    // Every control has a name.
    const unnamed = await page.evaluate(() =>
      [...(document.querySelector('byomcp-chat')?.shadowRoot?.querySelectorAll('button, textarea') ?? [])]
        .filter((el) => !(el.getAttribute('aria-label') || el.textContent?.trim()))
        .map((el) => el.className),
    );
    assert.deepEqual(unnamed, []);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('byomcp-chat')?.hasAttribute('open'));
    assert.equal(await page.evaluate(() => document.querySelector('byomcp-chat')?.shadowRoot?.activeElement?.className), 'launcher');
    assert.equal(await page.locator(W.launcher).getAttribute('aria-expanded'), 'false');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('model text is rendered as text, with safe links only', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'say something hostile');
    await page.locator(W.text).filter({ hasText: 'Look:' }).waitFor();
    await waitIdle(page);
    const text = page.locator(W.text).last();
    assert.equal(await page.evaluate(() => /** @type {any} */ (window).__pwned), undefined);
    assert.equal(await text.locator('img').count(), 0);
    assert.match(await text.innerText(), /<img src=x onerror="window.__pwned=1">/);
    assert.equal(await text.locator('strong').innerText(), 'bold');
    assert.equal(await text.locator('code').innerText(), '<b>code</b>');
    const links = await text.locator('a').evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.getAttribute('target'), a.getAttribute('rel'), a.textContent]));
    assert.deepEqual(links, [['https://example.com/a', '_blank', 'noopener noreferrer', 'site']]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('an error shows Retry, which sends the message again', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'a flaky question');
    const error = page.locator(W.error);
    await error.waitFor();
    await waitIdle(page);
    const retry = error.locator('button');
    assert.equal(await retry.innerText(), 'Retry');
    await retry.click();
    await page.locator(W.text).filter({ hasText: 'Worked the second time.' }).waitFor();
    await waitIdle(page);
    const asked = stack.fake.requests.map((r) => lastUserText(r.body)).filter((t) => /flaky/.test(t));
    assert.equal(asked.length, 2, `the model got ${asked.length} requests for the flaky question`);
    assert.equal(await page.locator(W.user).count(), 2, 'the retried message is shown again');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a page tool the agent rejects is shown discreetly', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    /** @type {string[]} */
    const warnings = [];
    page.on('console', (m) => {
      if (m.type() === 'warning') warnings.push(m.text());
    });
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await page.evaluate(() =>
      /** @type {any} */ (document).modelContext.registerTool({
        name: 'broken_tool',
        description: 'Has an invalid schema.',
        inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } },
        execute: () => 'never',
      }),
    );
    await page.locator(W.launcher).click();
    const note = page.locator(`${W.note}.rejected`);
    await note.waitFor();
    assert.match(await note.innerText(), /broken_tool/);
    assert.ok(warnings.some((w) => /broken_tool/.test(w)), `warnings: ${warnings}`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the page themes the widget with CSS variables, and page CSS does not leak in', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await page.addStyleTag({ content: 'button { background: red !important; font-family: serif !important; } * { color: lime !important; }' });
    await page.locator(W.launcher).waitFor();
    const bg = await page.locator(W.launcher).evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(bg, 'rgb(15, 118, 110)', 'the launcher uses the site accent (--byomcp-accent)');
    await page.evaluate(() => document.querySelector('byomcp-chat')?.style.setProperty('--byomcp-accent', 'rgb(1, 2, 3)'));
    assert.equal(await page.locator(W.launcher).evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(1, 2, 3)');
    const font = await page.locator(W.launcher).evaluate((el) => getComputedStyle(el).fontFamily);
    assert.notEqual(font, 'serif');
    assert.match(font, /system-ui/);
  } finally {
    await context.close();
  }
});
