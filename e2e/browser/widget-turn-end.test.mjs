// How a turn ended, shown again after a reload or a navigation from what the agent stored
// (issue 19, points 2 and 6): an error that ended a turn while the page was away (a tool
// navigated, and the model failed before the next page was there) is shown on the next page,
// and a stopped answer keeps its "Stopped." note in a tab that has nothing of the turn but
// the session id (the note comes from the agent's stored messages, not from sessionStorage).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, newPage, ask, openWidget, waitIdle, waitConnected, WAIT_MS, W } from './harness.mjs';
import { lastUserText, toolResultsSinceUser } from './fake-openai.mjs';

const SLOW = Array.from({ length: 50 }, (_, i) => `Slow fact ${i + 1}.`).join(' ');

/** Released at the end: the model's answer to "hold on" waits for it (it is stopped before). */
let releaseHeld = () => {};
const held = new Promise((resolve) => {
  releaseHeld = resolve;
});

async function script(body) {
  const user = lastUserText(body);
  const results = toolResultsSinceUser(body);
  if (/financing page/.test(user)) {
    if (results.length === 0) return { toolCalls: [{ name: 'go_to_financing', arguments: {} }] };
    return { status: 400 }; // the model fails once the page has gone
  }
  if (/slowly/.test(user)) return { text: SLOW, chunkSize: 4, delayMs: 60 };
  if (/hold on/.test(user)) {
    await held;
    return { text: 'too late' };
  }
  return { text: `You said: ${user}` };
}

/** A page tool that takes the visitor to the financing page (registered before the widget loads). */
function registerNavigationTool() {
  const tool = {
    name: 'go_to_financing',
    description: 'Opens the financing page.',
    inputSchema: { type: 'object', properties: {} },
    execute: () => {
      setTimeout(() => location.assign('/financing.html'), 50);
      return 'Opening the financing page.';
    },
  };
  if (location.pathname === '/') {
    /** @type {any} */ (document).modelContext = { __byomcpQueue: [[tool, {}]], registerTool() {} };
  }
}

let stack;
before(async () => {
  stack = await startStack({ script });
});
after(async () => {
  releaseHeld();
  await stack?.close();
});

test('an error that ended a turn while the page was away is shown on the next page', async () => {
  const context = await stack.browser.newContext();
  try {
    await context.addInitScript(registerNavigationTool);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    // The next page arrives only once the model has failed and the agent has ended the turn
    // (its debug log says so after the turn's end is stored).
    const failedTurns = () => stack.server.logs.join('').match(/turn ended[^\n]*"error"/g)?.length ?? 0;
    const before = failedTurns();
    await page.route('**/financing.html', async (route) => {
      const end = Date.now() + WAIT_MS;
      while (failedTurns() === before && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      assert.ok(failedTurns() > before, 'the turn ended with an error while the page was away');
      await route.continue();
    });
    await ask(page, 'take me to the financing page');
    await page.waitForURL('**/financing.html');
    await waitConnected(page);
    await openWidget(page);

    const error = page.locator(W.error);
    await error.waitFor();
    assert.match(await error.innerText(), /scripted 400/, 'the error the agent stored for the turn');
    assert.equal(await error.count(), 1);
    assert.equal(await page.locator(`${W.error} .retry`).count(), 1, 'the last turn failed: Retry is offered');
    assert.deepEqual(await page.locator(W.user).allInnerTexts(), ['take me to the financing page']);

    // And it stays after a reload.
    await page.reload();
    await waitConnected(page);
    await openWidget(page);
    await page.locator(W.error).waitFor();
    assert.match(await page.locator(W.error).innerText(), /scripted 400/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a stopped answer keeps its "Stopped." note in a tab that has only the session id', async () => {
  const context = await stack.browser.newContext();
  let stored = '';
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    // Stopped in the middle of its text.
    await ask(page, 'tell me slowly');
    await page.locator(W.text).filter({ hasText: 'Slow fact 2.' }).waitFor();
    await page.locator(W.stop).click();
    await page.locator(W.note).filter({ hasText: 'Stopped.' }).waitFor();
    await waitIdle(page);
    // Stopped before the model said anything.
    await ask(page, 'hold on');
    await stack.fake.waitFor((reqs) => reqs.some((r) => /hold on/.test(lastUserText(r.body))));
    await page.locator(W.stop).click();
    await page.waitForFunction(() => document.querySelector('byomcp-chat')?.shadowRoot?.querySelectorAll('.note').length === 2, null, { timeout: WAIT_MS });
    await waitIdle(page);
    await ask(page, 'thanks');
    await page.locator(W.text).filter({ hasText: 'You said: thanks' }).waitFor();
    await waitIdle(page);
    const keys = await page.evaluate(() => Object.keys(sessionStorage).sort());
    assert.deepEqual(keys, ['byomcp', 'byomcp:open'], 'the tab keeps the session id and the panel state, nothing of the turns');
    stored = await page.evaluate(() => sessionStorage.getItem('byomcp') ?? '');
    assert.ok(stored, 'the session id is kept');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }

  // A new tab given only the session id (what a reload keeps) shows both notes, on the right turns.
  const fresh = await stack.browser.newContext();
  try {
    await fresh.addInitScript((v) => {
      if (!sessionStorage.getItem('byomcp')) sessionStorage.setItem('byomcp', v);
    }, stored);
    const { page, errors } = await newPage(fresh);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await openWidget(page);
    await page.locator(W.text).filter({ hasText: 'You said: thanks' }).waitFor();
    const turns = await page.evaluate(() =>
      [...(document.querySelector('byomcp-chat')?.shadowRoot?.querySelectorAll('.turn') ?? [])].map((t) => ({
        user: t.querySelector('.user-text')?.textContent ?? '',
        notes: [...t.querySelectorAll('.note')].map((n) => n.textContent),
        errors: t.querySelectorAll('.error').length,
      })),
    );
    assert.deepEqual(turns, [
      { user: 'tell me slowly', notes: ['Stopped.'], errors: 0 },
      { user: 'hold on', notes: ['Stopped.'], errors: 0 },
      { user: 'thanks', notes: [], errors: 0 },
    ]);
    assert.deepEqual(errors, []);
  } finally {
    await fresh.close();
  }
});
