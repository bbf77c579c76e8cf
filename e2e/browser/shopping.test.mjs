// The car-shopping journey in a real browser against the real binary and a scripted fake model:
// search → select (navigate, transcript kept, new page's tools offered) → configure → book a
// test drive with Confirm → try again and Cancel (the model gets the declined error).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, recordClientEvents, newPage, ask, waitIdle, waitConnected, transcript, isoDateIn, W } from './harness.mjs';
import { lastUserText, toolNames, toolResultsSinceUser } from './fake-openai.mjs';

const DATE = isoDateIn(7);
const OPENED = 'I opened the RAV4 page for you. It is a 2023 hybrid with 12,000 miles, and you can configure it on the right.';

/** The model's script: a function of the request, like a (very predictable) LLM. */
function script(body) {
  const user = lastUserText(body);
  const results = toolResultsSinceUser(body);
  const last = results[results.length - 1];
  if (/SUVs under/i.test(user)) {
    if (!last) return { toolCalls: [{ name: 'search_cars', arguments: { bodyType: 'suv', maxPrice: 35000 } }] };
    return { text: `Here they are: ${last.content.includes('c01') ? 'the **Toyota RAV4** (c01)' : 'nothing'} and two more.` };
  }
  if (/open the RAV4/i.test(user)) {
    if (!last) return { toolCalls: [{ name: 'select_car', arguments: { carId: 'c01' } }] };
    // Streamed slowly, so the answer is still being written while the page navigates.
    return { text: OPENED, chunkSize: 4, delayMs: 25 };
  }
  if (/XLE in blue/i.test(user)) {
    if (!toolNames(body).includes('configure_car')) return { text: 'NO CONFIGURATOR TOOLS' };
    if (!last) return { toolCalls: [{ name: 'configure_car', arguments: { trim: 'XLE', color: 'blue', packages: ['winter'] } }] };
    return { text: 'Done: XLE, blue, winter package.' };
  }
  if (/test drive/i.test(user)) {
    if (!last) return { toolCalls: [{ name: 'go_to_test_drive', arguments: {} }] };
    return { text: 'Here is the booking form.' };
  }
  if (/book it/i.test(user)) {
    if (!last) {
      return { toolCalls: [{ name: 'fill_form_data', arguments: { name: 'Alex Doe', email: 'alex@example.com', date: DATE, time: '10:00' } }] };
    }
    if (last.name === 'fill_form_data') return { text: 'Booking it now.', toolCalls: [{ name: 'book_test_drive', arguments: {} }] };
    return { text: /declined/.test(last.content) ? 'OK, I did not book it.' : 'Your test drive is booked.' };
  }
  return { text: 'I am not sure what you mean.' };
}

let stack;
before(async () => {
  stack = await startStack({ script });
});
after(async () => {
  await stack?.close();
});

test('search, select, configure and book a test drive', async () => {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await page.locator('#grid .card').first().waitFor();
    assert.equal(await page.locator('#grid .card').count(), 24);

    // 1. Ask for SUVs under a price: the grid shows only those.
    await ask(page, 'Show me SUVs under $35,000');
    await waitIdle(page);
    const shown = await page.locator('#grid .card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-car-id')));
    assert.deepEqual(shown.sort(), ['c01', 'c02', 'c08']);
    assert.match(page.url(), /bodyType=suv/);
    assert.match(page.url(), /maxPrice=35000/);
    assert.match(await page.locator(W.text).last().innerText(), /Here they are: the Toyota RAV4 \(c01\)/);
    assert.equal(await page.locator(`${W.text} strong`).last().innerText(), 'Toyota RAV4');
    const tool = page.locator(W.tool).first();
    assert.equal(await tool.getAttribute('data-state'), 'ok');
    assert.match(await tool.locator('summary').innerText(), /search cars/);
    const firstCall = stack.fake.requests[0].body;
    assert.ok(toolNames(firstCall).includes('search_cars'), `offered ${toolNames(firstCall)}`);
    assert.ok(!toolNames(firstCall).includes('configure_car'));

    // 2. Select one: the page navigates, the conversation follows.
    await ask(page, 'Please open the RAV4');
    await page.waitForURL(/car\.html\?id=c01/);
    await waitConnected(page);
    await page.locator(W.text).filter({ hasText: 'configure it on the right.' }).waitFor();
    await waitIdle(page);
    const t = await transcript(page);
    assert.match(t, /Show me SUVs under \$35,000/);
    assert.match(t, /Here they are/);
    assert.match(t, /Please open the RAV4/);
    assert.equal(count(t, 'Here they are'), 1, 'the first answer must appear once');
    assert.equal(count(t, OPENED), 1, 'the answer written across the navigation must appear once, whole');
    assert.equal(count(t, 'I opened'), 1);
    assert.equal(await page.locator(W.user).count(), 2);
    const tools = await page.locator(`${W.tool} summary`).allInnerTexts();
    assert.deepEqual(tools.map((x) => x.trim()), ['Ran search cars', 'Ran select car']);
    assert.equal(await page.locator('byomcp-chat').getAttribute('open'), '', 'the panel stays open across pages');

    // 3. Configure: the model is offered the configurator's tools; the price updates.
    assert.equal(await page.locator('#total').innerText(), '$31,990');
    const before = stack.fake.requests.length;
    await ask(page, 'Make it the XLE in blue with the winter package');
    await page.locator(W.text).filter({ hasText: 'Done: XLE, blue, winter package.' }).waitFor();
    await waitIdle(page);
    const offered = toolNames(stack.fake.requests[before].body);
    for (const name of ['configure_car', 'get_price_summary', 'go_to_test_drive', 'go_to_financing', 'back_to_inventory']) {
      assert.ok(offered.includes(name), `${name} not offered: ${offered}`);
    }
    assert.ok(!offered.includes('search_cars'), `inventory tools still offered: ${offered}`);
    assert.equal(await page.locator('#total').innerText(), '$35,390');
    assert.equal(await page.locator('input[name="color"][value="blue"]').isChecked(), true);
    assert.equal(await page.locator('input[name="packages"][value="winter"]').isChecked(), true);

    // 4. Book a test drive: Confirm runs it.
    await ask(page, 'I want a test drive');
    await page.waitForURL(/test-drive\.html\?id=c01/);
    await waitConnected(page);
    await page.locator(W.text).filter({ hasText: 'Here is the booking form.' }).waitFor();
    await waitIdle(page);
    await ask(page, 'Book it for Alex Doe, alex@example.com');
    const card = page.locator(W.confirm);
    await card.waitFor();
    assert.match(await card.innerText(), /Book test drive/);
    // The page's summary says what will be booked (issue 38): the car, the time and the name.
    assert.match(await page.locator(`${W.confirm} .confirm-summary`).innerText(), /^Book a test drive of the .+ on \w{3}, \w{3} \d+, \d+:\d\d [AP]M for Alex Doe$/);
    assert.equal(await page.locator('#td-name').inputValue(), 'Alex Doe', 'the form was filled before the confirmation');
    assert.equal(await page.locator('#booked').isVisible(), false, 'nothing is booked before Confirm');
    await page.locator(W.confirmOk).click();
    await page.locator('#booked').waitFor({ state: 'visible' });
    assert.match(await page.locator('#booking-ref').innerText(), /^TD-\d{4}$/);
    await page.locator(W.text).filter({ hasText: 'Your test drive is booked.' }).waitFor();
    await waitIdle(page);
    const booked = toolResultsSinceUser(stack.fake.requests[stack.fake.requests.length - 1].body).find((r) => r.name === 'book_test_drive');
    assert.match(booked?.content ?? '', /Booked test drive TD-\d{4}/);

    // 5. Again on a fresh form, and Cancel: the model receives the declined error.
    await page.reload();
    await waitConnected(page);
    await ask(page, 'Book it again for Alex Doe, alex@example.com');
    await page.locator(W.confirm).waitFor();
    await page.locator(W.confirmCancel).click();
    await page.locator(W.text).filter({ hasText: 'OK, I did not book it.' }).waitFor();
    await waitIdle(page);
    const declined = toolResultsSinceUser(stack.fake.requests[stack.fake.requests.length - 1].body).find((r) => r.name === 'book_test_drive');
    assert.match(declined?.content ?? '', /The user declined to run book_test_drive\./);
    assert.equal(await page.locator('#booked').isVisible(), false, 'Cancel must not book');
    assert.match(await page.locator(W.note).last().innerText(), /declined Book test drive/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/** Occurrences of needle in haystack. */
function count(haystack, needle) {
  return haystack.split(needle).length - 1;
}
