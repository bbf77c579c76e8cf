// Stop during a long streamed answer, and a dropped connection in the middle of an answer: the
// widget stops cleanly in the first case and, in the second, reconnects and shows the whole
// answer exactly once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, startProxy, recordClientEvents, newPage, ask, waitIdle, waitConnected, waitTurnEnds, W } from './harness.mjs';
import { lastUserText } from './fake-openai.mjs';

const LONG = Array.from({ length: 120 }, (_, i) => `Sentence number ${i + 1} of a very long story about cars.`).join(' ');
const MEDIUM = Array.from({ length: 40 }, (_, i) => `Hybrid fact ${i + 1}.`).join(' ');

function script(body) {
  const user = lastUserText(body);
  if (/long story/.test(user)) return { text: LONG, chunkSize: 8, delayMs: 30 };
  if (/hybrids/.test(user)) return { text: MEDIUM, chunkSize: 5, delayMs: 25 };
  return { text: `You said: ${user}` };
}

let stack;
let proxy;
before(async () => {
  stack = await startStack({ script });
  proxy = await startProxy(stack.server.url);
});
after(async () => {
  await proxy?.close();
  await stack?.close();
});

test('Stop ends a long streamed answer', async () => {
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'Tell me a long story');
    // 40 characters in (five chunks; chunks that come while a write is in flight may join one event).
    await page.waitForFunction(() => /** @type {any} */ (window).__events.filter((e) => e.type === 'text_delta').map((e) => e.delta).join('').length >= 40, null, { polling: 10 });
    await page.locator(W.stop).click();
    const [end] = await waitTurnEnds(page, 1);
    assert.equal(end.stopReason, 'cancelled');
    await waitIdle(page);
    assert.match(await page.locator(W.note).last().innerText(), /Stopped/);

    // The model request was abandoned, and no text arrived after the turn ended.
    const req = stack.fake.requests.find((r) => /long story/.test(lastUserText(r.body)));
    await stack.fake.waitFor(() => req.aborted);
    const events = await page.evaluate(() => /** @type {any} */ (window).__events);
    const endAt = events.findIndex((e) => e.type === 'turn_end');
    assert.deepEqual(events.slice(endAt + 1).filter((e) => e.type === 'text_delta'), []);
    const streamed = events.filter((e) => e.type === 'text_delta').map((e) => e.delta).join('');
    assert.ok(streamed.length > 0 && streamed.length < LONG.length, `streamed ${streamed.length} of ${LONG.length}`);
    assert.ok(LONG.startsWith(streamed));
    const shown = await page.locator(W.text).last().innerText();
    assert.equal(shown.trim(), streamed.trim());
    assert.ok(req.sent.startsWith(streamed), 'the page shows only what the model sent');
    assert.equal(await page.locator(W.send).isVisible(), true, 'Send is back after Stop');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a dropped connection mid-answer reconnects with nothing lost or doubled', async () => {
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(proxy.url + '/');
    await waitConnected(page);
    await ask(page, 'Tell me about hybrids');
    // 15 characters in (three chunks).
    await page.waitForFunction(() => /** @type {any} */ (window).__events.filter((e) => e.type === 'text_delta').map((e) => e.delta).join('').length >= 15, null, { polling: 10 });
    assert.ok(proxy.dropAll() > 0, 'no connection to drop');
    await page.waitForFunction(() => /** @type {any} */ (window).__states.includes('reconnecting'));
    const [end] = await waitTurnEnds(page, 1);
    assert.equal(end.stopReason, 'end');
    assert.equal(end.text, MEDIUM);
    await waitIdle(page);
    const states = await page.evaluate(() => /** @type {any} */ (window).__states);
    assert.ok(states.lastIndexOf('open') > states.indexOf('reconnecting'), `states ${states}`);
    const sessions = await page.evaluate(() => /** @type {any} */ (window).__sessions);
    assert.ok(sessions.length >= 2 && sessions.at(-1).resumed === true, `sessions ${JSON.stringify(sessions)}`);
    assert.equal(sessions.at(-1).sessionId, sessions[0].sessionId);

    // Every delta arrived once, in order, and the transcript shows the answer once.
    const events = await page.evaluate(() => /** @type {any} */ (window).__events);
    const seqs = events.filter((e) => typeof e.seq === 'number').map((e) => e.seq);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    assert.equal(new Set(seqs).size, seqs.length, 'an event was delivered twice');
    assert.equal(events.filter((e) => e.type === 'text_delta').map((e) => e.delta).join(''), MEDIUM);
    assert.equal(await page.locator(W.turns).count(), 1);
    assert.equal((await page.locator(W.text).last().innerText()).trim(), MEDIUM);

    // The conversation goes on normally afterwards.
    await ask(page, 'thanks');
    await page.locator(W.text).filter({ hasText: 'You said: thanks' }).waitFor();
    await waitIdle(page);
    assert.equal(await page.locator(W.turns).count(), 2);
    assert.equal(await page.locator(W.user).count(), 2);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
