// The widget as a view of the agent's log (issue 19): a reload in the middle of a streamed
// answer shows the running turn from the agent/session result's snapshot alone (the page's
// first session asks for no replay, and the tab keeps no journal of the turn), then goes on
// with the live events, the whole answer exactly once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, newPage, ask, waitIdle, waitConnected, W, WAIT_MS } from './harness.mjs';
import { lastUserText } from './fake-openai.mjs';

const STORY = Array.from({ length: 30 }, (_, i) => `Chapter ${i + 1} of the road trip.`).join(' ');

let stack;
before(async () => {
  stack = await startStack({
    script: (body) => (/road trip/.test(lastUserText(body)) ? { text: STORY, chunkSize: 6, delayMs: 60 } : { text: 'ok' }),
  });
});
after(async () => {
  await stack?.close();
});

/**
 * Records, on every page load: the client's agent events, its sessions, and what the widget
 * shows right after each session result (the snapshot's rendering, before any live event).
 * @param {import('playwright-core').BrowserContext} context
 */
async function recordSnapshots(context) {
  await context.addInitScript(() => {
    const w = /** @type {any} */ (window);
    w.__events = [];
    w.__sessions = [];
    let value;
    Object.defineProperty(window, 'byomcp', {
      configurable: true,
      get: () => value,
      set: (v) => {
        value = v;
        v.client.addEventListener('agent-event', (e) => w.__events.push(e.detail));
        // Added after the widget's own listener: this runs once the widget has applied the result.
        v.client.addEventListener('session', (e) => {
          const root = document.querySelector('byomcp-chat')?.shadowRoot;
          w.__sessions.push({
            seq: e.detail.seq,
            running: e.detail.running,
            eventsBefore: w.__events.length,
            users: [...(root?.querySelectorAll('.user-text') ?? [])].map((n) => n.textContent),
            text: [...(root?.querySelectorAll('.assistant .text') ?? [])].map((n) => n.textContent).join(''),
            busy: document.querySelector('byomcp-chat')?.getAttribute('aria-busy'),
          });
        });
      },
    });
  });
}

test('a reload mid-answer shows the running turn from the session snapshot alone', async () => {
  const context = await stack.browser.newContext();
  try {
    await recordSnapshots(context);
    const { page, errors } = await newPage(context);
    /** @type {any[]} agent/session requests, in order */
    const sessionRequests = [];
    page.on('websocket', (ws) => {
      ws.on('framesent', (f) => {
        try {
          const m = JSON.parse(String(f.payload));
          if (m.method === 'agent/session') sessionRequests.push(m.params);
        } catch {
          // not JSON: not ours
        }
      });
    });
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'Tell me about the road trip');
    // 48 characters in (eight chunks).
    await page.waitForFunction(() => /** @type {any} */ (window).__events.filter((e) => e.type === 'text_delta').map((e) => e.delta).join('').length >= 48, null, { timeout: WAIT_MS });
    const before = await page.evaluate(() => /** @type {any} */ (window).__events.filter((e) => e.type === 'text_delta').map((e) => e.delta).join(''));
    assert.ok(before.length > 0 && before.length < STORY.length, 'reloaded in the middle of the answer');

    await page.reload();
    await waitConnected(page);
    const [snap] = await page.evaluate(() => /** @type {any} */ (window).__sessions);
    // The page's first session asked for no replay: the result is the state.
    assert.equal(sessionRequests.length, 2);
    assert.equal(sessionRequests[1].lastSeq, undefined, `agent/session after the reload: ${JSON.stringify(sessionRequests[1])}`);
    assert.ok(sessionRequests[1].sessionId, 'the stored conversation is resumed');
    assert.ok(snap.running, 'the result carries the running turn');
    assert.equal(snap.eventsBefore, 0, 'no live event before the session result');
    assert.equal(typeof snap.running.clientTurnId, 'string', 'the running turn knows the page\'s client turn id');
    assert.equal(snap.running.events[0].type, 'turn_start');
    // What the widget showed from the snapshot alone, before any live event.
    assert.deepEqual(snap.users, ['Tell me about the road trip']);
    assert.ok(snap.text.length >= before.trim().length, `snapshot text ${snap.text.length} chars, the page had seen ${before.length}`);
    assert.ok(STORY.startsWith(snap.text.trim()), `snapshot text is the answer's start: ${JSON.stringify(snap.text.slice(0, 80))}`);
    assert.equal(snap.busy, 'true', 'the running turn is the active one (Stop works on it)');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('byomcp:turn')), null, 'no journal of the turn in the tab');

    // The rest comes live, after the snapshot's seq; the answer shows once, whole.
    await waitIdle(page);
    const live = await page.evaluate(() => /** @type {any} */ (window).__events.filter((e) => typeof e.seq === 'number'));
    assert.ok(live.length > 0 && live.every((e) => e.seq > snap.seq), 'live events only after the snapshot');
    assert.deepEqual(await page.locator(W.user).allInnerTexts(), ['Tell me about the road trip']);
    assert.equal(await page.locator(W.turns).count(), 1);
    assert.equal((await page.locator(W.text).allInnerTexts()).join('').trim(), STORY);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
