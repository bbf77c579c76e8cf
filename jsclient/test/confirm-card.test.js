// The confirmation card's logic (issue 38, points 1 and 2): values read as the visitor reads
// them (oneOf / anyOf / enumNames titles), the tool's one-line summary, the checks of the
// visitor's edits; and what the page's ToolHost does with the answer (the call runs with the
// edited arguments and the model reads that it changed; a decline carries the reason), for page
// tools and for server tools asked through agent/confirm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeArgs, fillSummary, summaryOf, validateArgs, checkValue, changedArgs, choicesOf, editorKind, CARD_STRINGS, META_SUMMARY } from '../confirm-card.js';
import { humanize } from '../labels.js';
import { Meta, Method } from '../protocol.js';
import { ToolHost, changedText, declinedText, isDeclined } from '../tools.js';
import { Peer } from '../wsrpc.js';
import { FakeSocket, quietLogger } from './fakesocket.js';

const CARS = {
  type: 'object',
  properties: {
    carId: {
      type: 'string',
      title: 'Car',
      oneOf: [
        { const: 'rav4-2023', title: '2023 Toyota RAV4' },
        { const: 'civic-2022', title: '2022 Honda Civic' },
      ],
    },
    date: { type: 'string', format: 'date', title: 'Date' },
    time: { type: 'string', enum: ['09:00', '11:00'], enumNames: ['9 in the morning', '11 in the morning'] },
    seats: { type: 'integer', minimum: 1, maximum: 7 },
    colour: { type: 'string', anyOf: [{ const: 'r', title: 'Red' }, { enum: ['b'], title: 'Blue' }] },
    extras: { type: 'array', items: { type: 'string', oneOf: [{ const: 'gps', title: 'Navigation' }, { const: 'tow', title: 'Tow bar' }] } },
    name: { type: 'string', minLength: 2, maxLength: 40, pattern: '^[A-Za-z ]+$' },
    newsletter: { type: 'boolean' },
  },
  required: ['carId', 'date', 'name'],
};

test('describeArgs shows a choice by its title: oneOf, anyOf, enum with enumNames, list items', () => {
  const rows = describeArgs({ carId: 'rav4-2023', time: '11:00', colour: 'b', extras: ['tow', 'gps'], seats: 4 }, CARS, { humanize });
  const got = Object.fromEntries((rows ?? []).map((r) => [r.key, [r.label, r.value]]));
  assert.deepEqual(got, {
    carId: ['Car', '2023 Toyota RAV4'],
    time: ['Time', '11 in the morning'],
    colour: ['Colour', 'Blue'],
    extras: ['Extras', 'Tow bar, Navigation'],
    seats: ['Seats', '4'],
  });
  // A value that is none of the choices is shown as it is, not hidden.
  assert.equal(describeArgs({ carId: 'mystery' }, CARS)?.[0].value, 'mystery');
  // An enum without names is its values.
  assert.deepEqual(choicesOf({ enum: ['a', 1] }), [{ value: 'a', title: 'a' }, { value: 1, title: '1' }]);
  assert.equal(choicesOf({ oneOf: [{ type: 'string' }, { type: 'number' }] }), null, 'a oneOf of types is no list of choices');
  assert.equal(META_SUMMARY, Meta.Summary, 'the card (which imports nothing) reads the key protocol.js names');
});

test('fillSummary fills a template with the values as the visitor reads them', () => {
  const args = { carId: 'civic-2022', date: '2026-12-12', time: '09:00', name: 'Jane Doe', newsletter: true };
  for (const [template, want] of [
    ['Book a test drive of the {carId} on {date} at {time} for {name}', 'Book a test drive of the 2022 Honda Civic on 2026-12-12 at 9 in the morning for Jane Doe'],
    ['Newsletter: {newsletter}', 'Newsletter: Yes'],
    ['Seats: {seats}', 'Seats: —'],
    ['Literal {{braces}} and {unknown.key}', 'Literal {braces} and —'],
    ['  spread\n over   lines ', 'spread over lines'],
  ]) {
    assert.equal(fillSummary(template, args, CARS), want, template);
  }
  assert.equal(fillSummary('{name}', { name: 'x'.repeat(1000) }, CARS).length, 300);
  // Where the summary comes from: a page tool's function first, else _meta's template.
  assert.equal(summaryOf({ name: 't', _meta: { 'byomcp/summary': 'Drive the {carId}' } }, { carId: 'rav4-2023' }, CARS), 'Drive the 2023 Toyota RAV4');
  assert.equal(summaryOf({ name: 't', summary: (a) => `Fn ${a.carId}`, _meta: { 'byomcp/summary': 'tpl' } }, { carId: 'x' }, CARS), 'Fn x');
  assert.equal(summaryOf({ name: 't', summary: () => { throw new Error('boom'); } }, {}, CARS), '', 'a failing summary function shows none');
  assert.equal(summaryOf({ name: 't' }, {}, CARS), '');
});

test('validateArgs checks an edit again: required, type, bounds, length, pattern, choices', () => {
  const good = { carId: 'rav4-2023', date: '2026-12-12', name: 'Jane Doe', seats: 3, newsletter: false, time: '09:00' };
  assert.deepEqual(validateArgs(good, CARS), {});
  const cases = [
    [{ carId: undefined }, 'carId', CARD_STRINGS.invalidRequired],
    [{ name: '' }, 'name', CARD_STRINGS.invalidRequired],
    [{ carId: 'tesla' }, 'carId', CARD_STRINGS.invalidChoice],
    [{ time: '10:00' }, 'time', CARD_STRINGS.invalidChoice],
    [{ seats: 0 }, 'seats', 'At least 1.'],
    [{ seats: 8 }, 'seats', 'At most 7.'],
    [{ seats: 2.5 }, 'seats', CARD_STRINGS.invalidInteger],
    [{ seats: NaN }, 'seats', CARD_STRINGS.invalidNumber],
    [{ seats: '3' }, 'seats', CARD_STRINGS.invalidNumber],
    [{ name: 'J' }, 'name', 'At least 2 characters.'],
    [{ name: 'J'.repeat(41) }, 'name', 'At most 40 characters.'],
    [{ name: 'Jane 2' }, 'name', CARD_STRINGS.invalidPattern],
    [{ newsletter: 'yes' }, 'newsletter', CARD_STRINGS.invalidType],
  ];
  for (const [change, key, want] of cases) {
    const args = { ...good, ...change };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete args[k];
    assert.deepEqual(validateArgs(args, CARS), { [key]: want }, JSON.stringify(change));
  }
  assert.equal(checkValue(undefined, { type: 'string' }, false), '', 'an optional value may be left out');
  assert.equal(editorKind(CARS.properties.carId), 'choice');
  assert.equal(editorKind(CARS.properties.seats), 'integer');
  assert.equal(editorKind(CARS.properties.extras), null, 'lists are shown, not edited');
  assert.deepEqual(changedArgs({ a: 1, b: 'x' }, { a: 2, b: 'x', c: true }), [['a', 1, 2], ['c', undefined, true]]);
});

let nextId = 9000;

function setup() {
  const socket = FakeSocket.opened();
  const logger = quietLogger();
  const host = new ToolHost({ version: '1', logger });
  host.attach(new Peer(socket, { logger }));
  /** @param {string} method @param {unknown} params */
  const request = async (method, params) => {
    const id = nextId++;
    socket.receive({ jsonrpc: '2.0', id, method, params });
    return socket.next((m) => m.id === id && !('method' in m));
  };
  return { socket, host, request };
}

const booking = (/** @type {any[]} */ ran, extra = {}) => ({
  name: 'book_test_drive',
  description: 'Books a test drive',
  inputSchema: CARS,
  annotations: { consequentialHint: true },
  execute: (/** @type {any} */ args) => (ran.push(args), `booked ${args.carId} on ${args.date}`),
  ...extra,
});

test('a page tool runs with the arguments the visitor edited, and the model reads what changed', async () => {
  const { host, request } = setup();
  /** @type {any[]} */
  const ran = [];
  /** @type {any[]} */
  const asked = [];
  host.registerTool(booking(ran, { _meta: { 'byomcp/summary': 'Book the {carId} on {date}' } }));
  host.setConfirmHandler((req) => (asked.push(req), { approved: true, arguments: { ...req.args, date: '2026-12-19' } }));
  const reply = await request(Method.ToolsCall, { name: 'book_test_drive', arguments: { carId: 'rav4-2023', date: '2026-12-12', name: 'Jane' } });
  assert.deepEqual(ran, [{ carId: 'rav4-2023', date: '2026-12-19', name: 'Jane' }]);
  assert.deepEqual(reply.result.content, [
    { type: 'text', text: 'The user changed the arguments before confirming: date from "2026-12-12" to "2026-12-19". The tool ran with the user\'s arguments.' },
    { type: 'text', text: 'booked rav4-2023 on 2026-12-19' },
  ]);
  // The card is given what it needs: the schema and the summary template.
  assert.equal(asked[0].tool.inputSchema.properties.carId.title, 'Car');
  assert.equal(asked[0].tool._meta['byomcp/summary'], 'Book the {carId} on {date}');
  // The template is listed to the agent as _meta (MCP's Tool._meta).
  const list = await request(Method.ToolsList, {});
  assert.deepEqual(list.result.tools[0]._meta, { 'byomcp/summary': 'Book the {carId} on {date}' });
});

test('an approval that changed nothing adds no note; a summary function stays in the page', async () => {
  const { host, request } = setup();
  /** @type {any[]} */
  const ran = [];
  const summary = (/** @type {any} */ a) => `Book ${a.carId}`;
  host.registerTool(booking(ran, { _meta: { 'byomcp/summary': summary, other: 1 } }));
  /** @type {any[]} */
  const asked = [];
  host.setConfirmHandler((req) => (asked.push(req), { approved: true, arguments: { ...req.args } }));
  const reply = await request(Method.ToolsCall, { name: 'book_test_drive', arguments: { carId: 'rav4-2023', date: '2026-12-12' } });
  assert.deepEqual(reply.result.content, [{ type: 'text', text: 'booked rav4-2023 on 2026-12-12' }]);
  assert.equal(asked[0].tool.summary, summary);
  const list = await request(Method.ToolsList, {});
  assert.deepEqual(list.result.tools[0]._meta, { other: 1 }, 'a function is not JSON: it is not listed');
  host.registerTool({ ...booking([]), name: 'only_fn', _meta: { 'byomcp/summary': summary } });
  const listed = (await request(Method.ToolsList, {})).result.tools.find((/** @type {any} */ t) => t.name === 'only_fn');
  assert.equal('_meta' in listed, false, 'nothing left to list: no _meta');
  assert.throws(() => host.registerTool({ ...booking([]), name: 'bad', _meta: { 'byomcp/summary': 5 } }), /must be a string or a function/);
  assert.throws(() => host.registerTool({ ...booking([]), name: 'bad2', _meta: [] }), /_meta of "bad2" must be an object/);
});

test('a decline with a reason: the model reads the reason in the error result', async () => {
  const { host, request } = setup();
  /** @type {any[]} */
  const ran = [];
  host.registerTool(booking(ran));
  host.setConfirmHandler(() => ({ approved: false, reason: '  I want the\nred one  ' }));
  const reply = await request(Method.ToolsCall, { name: 'book_test_drive', arguments: { carId: 'rav4-2023' } });
  assert.deepEqual(ran, []);
  const text = "The user declined to run book_test_drive.\nThe user's reason: I want the red one";
  assert.deepEqual(reply.result, { isError: true, content: [{ type: 'text', text }] });
  assert.equal(declinedText('book_test_drive', 'I want the red one'), text);
  assert.equal(isDeclined(true, text), true, 'the widget still shows it as declined');
  assert.equal(isDeclined(true, `${text}\nmore`), false);
});

test('agent/confirm: the card gets the server tool\'s schema and summary; the answer carries edits and reasons', async () => {
  const params = {
    name: 'dealer__book',
    arguments: { carId: 'rav4-2023', date: '2026-12-12' },
    tool: { title: 'Book a test drive', inputSchema: CARS, annotations: { destructiveHint: true }, _meta: { 'byomcp/summary': 'Book the {carId}' } },
    _meta: { progressToken: 'byomcp-3', 'byomcp/confirm': true },
  };
  {
    const { host, request } = setup();
    /** @type {any[]} */
    const asked = [];
    host.setConfirmHandler((req) => (asked.push(req), { approved: true, arguments: { ...req.args, carId: 'civic-2022' } }));
    const reply = await request(Method.AgentConfirm, params);
    assert.deepEqual(reply.result, { confirmed: true, arguments: { carId: 'civic-2022', date: '2026-12-12' } });
    assert.equal(asked[0].tool.title, 'Book a test drive');
    assert.equal(summaryOf(asked[0].tool, asked[0].args, asked[0].tool.inputSchema), 'Book the 2023 Toyota RAV4');
  }
  {
    const { host, request } = setup();
    host.setConfirmHandler(() => ({ approved: false, reason: 'not today' }));
    assert.deepEqual((await request(Method.AgentConfirm, params)).result, { confirmed: false, reason: 'not today' });
  }
  {
    const { host, request } = setup();
    host.setConfirmHandler(() => ({ approved: true, arguments: { ...params.arguments } }));
    assert.deepEqual((await request(Method.AgentConfirm, params)).result, { confirmed: true }, 'unchanged arguments are not sent back');
  }
  {
    const { host, request } = setup();
    host.setConfirmHandler(() => true);
    assert.equal((await request(Method.AgentConfirm, { ...params, tool: 'x' })).error?.code, -32602);
  }
  assert.equal(changedText({ a: 1 }, { a: 1 }), '');
});
