// A page tool asks the visitor (issue 38, point 4): client.requestUserInput, shaped after WebMCP's
// user-input draft (form, url and interactive modes, mirroring MCP elicitation; confirm-card.js). The request's
// checks (a TypeError and no form for a bad one), the content's checks against the schema, and
// what the page's ToolHost does: the handler asked with the checked request while progress keeps
// the call alive, the answer given to the tool, an aborted call rejecting with its reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRequest, checkField, validateContent, checkAnswer, fieldKind, INPUT_PROGRESS_MESSAGE } from '../confirm-card.js';
import { Method } from '../protocol.js';
import { ToolHost } from '../tools.js';
import { Peer } from '../wsrpc.js';
import { FakeSocket, quietLogger } from './fakesocket.js';

/** Every kind of field MCP elicitation allows. */
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Your name', minLength: 2, maxLength: 40 },
    email: { type: 'string', format: 'email', title: 'Email' },
    site: { type: 'string', format: 'uri' },
    day: { type: 'string', format: 'date' },
    at: { type: 'string', format: 'date-time' },
    seats: { type: 'integer', minimum: 1, maximum: 7, default: 2 },
    budget: { type: 'number', minimum: 0 },
    newsletter: { type: 'boolean', default: false },
    colour: { type: 'string', enum: ['r', 'b'] },
    trim: { type: 'string', enum: ['se', 'xle'], enumNames: ['SE', 'XLE'] },
    car: { type: 'string', oneOf: [{ const: 'rav4', title: 'Toyota RAV4' }, { const: 'civic', title: 'Honda Civic' }] },
    extras: { type: 'array', items: { type: 'string', enum: ['gps', 'tow'] }, maxItems: 1 },
    packs: { type: 'array', items: { anyOf: [{ const: 'winter', title: 'Winter pack' }, { const: 'sport', title: 'Sport pack' }] }, minItems: 1 },
  },
  required: ['name', 'email', 'car'],
};

const form = (schema = SCHEMA) => ({ mode: 'form', message: 'Who is driving?', requestedSchema: schema });

test('checkRequest accepts form, url and interactive requests', () => {
  const f = checkRequest(form());
  assert.equal(f.mode, 'form');
  assert.deepEqual(/** @type {any} */ (f).requestedSchema, SCHEMA);
  assert.notEqual(/** @type {any} */ (f).requestedSchema, SCHEMA, 'the schema is copied');
  assert.deepEqual(checkRequest({ mode: 'url', message: 'Pay', url: 'https://pay.example/checkout?id=1' }), {
    mode: 'url',
    message: 'Pay',
    url: 'https://pay.example/checkout?id=1',
  });
  const cb = () => 1;
  assert.deepEqual(checkRequest({ mode: 'interactive', callback: cb }), { mode: 'interactive', callback: cb });
  const kinds = Object.fromEntries(Object.entries(SCHEMA.properties).map(([k, p]) => [k, fieldKind(p)]));
  assert.deepEqual(kinds, {
    name: 'string', email: 'string', site: 'string', day: 'string', at: 'string', seats: 'integer', budget: 'number',
    newsletter: 'boolean', colour: 'choice', trim: 'choice', car: 'choice', extras: 'choices', packs: 'choices',
  });
});

test('checkRequest refuses bad requests with a TypeError that says what is wrong', () => {
  const p = (/** @type {any} */ props, extra = {}) => form({ type: 'object', properties: props, ...extra });
  /** @type {[unknown, RegExp][]} */
  const cases = [
    [null, /must be an object/],
    ['form', /must be an object/],
    [{ mode: 'popup', message: 'x' }, /unknown mode "popup"/],
    [{ message: 'x' }, /unknown mode/],
    [{ mode: 'form', requestedSchema: SCHEMA }, /message must be a non-empty string/],
    [{ mode: 'form', message: '  ', requestedSchema: SCHEMA }, /message must be a non-empty string/],
    [{ mode: 'form', message: 'x'.repeat(2001), requestedSchema: SCHEMA }, /longer than 2000/],
    [{ mode: 'interactive' }, /callback function/],
    [{ mode: 'url', message: 'x', url: 'javascript:alert(1)' }, /http or https, not javascript:/],
    [{ mode: 'url', message: 'x', url: 'data:text/html,hi' }, /http or https/],
    [{ mode: 'url', message: 'x', url: '/relative' }, /not an absolute URL/],
    [{ mode: 'url', message: 'x', url: 'https://me:pw@pay.example/' }, /user name or password/],
    [{ mode: 'url', message: 'x' }, /url must be a string/],
    [{ mode: 'form', message: 'x' }, /requestedSchema must be/],
    [form({ type: 'array', items: {} }), /requestedSchema must be/],
    [p({}), /no properties/],
    [p({ address: { type: 'object', properties: { city: { type: 'string' } } } }), /properties\.address: .*not a nested object/],
    [p({ tags: { type: 'array', items: { type: 'string' } } }), /properties\.tags: .*multiple choice/],
    [p({ x: { type: ['string', 'null'] } }), /properties\.x/],
    [p({ x: 'string' }), /properties\.x: must be an object/],
    [p({ x: { type: 'string', format: 'ipv4' } }), /format "ipv4" is not one of email, uri, date, date-time/],
    [p({ x: { type: 'string', minLength: -1 } }), /minLength must be a whole number/],
    [p({ x: { type: 'number', maximum: 'ten' } }), /maximum must be a number/],
    [p({ x: { type: 'string', title: 3 } }), /title must be a string/],
    [p({ x: { type: 'string', enum: ['a', 2] } }), /the choice 2 is not a string/],
    [p({ x: { type: 'integer', minimum: 1, default: 0 } }), /default 0 does not fit/],
    [p({ x: { type: 'string' } }, { required: ['y'] }), /required must list names of its properties/],
    [p(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, { type: 'string' }]))), /more than 50/],
  ];
  for (const [req, want] of cases) {
    assert.throws(() => checkRequest(req), (err) => err instanceof TypeError && want.test(err.message), `${JSON.stringify(req)?.slice(0, 120)}: want ${want}`);
  }
});

test('checkField and validateContent check required, types, bounds, formats and choices', () => {
  const P = SCHEMA.properties;
  /** @type {[unknown, any, boolean, string][]} */
  const cases = [
    ['Jane', P.name, true, ''],
    [undefined, P.name, true, 'Required.'],
    ['J', P.name, true, 'At least 2 characters.'],
    [7, P.name, false, 'Not a valid value.'],
    ['jane@example.com', P.email, true, ''],
    ['jane@', P.email, true, 'Enter an email address.'],
    ['https://example.com/a', P.site, false, ''],
    ['example dot com', P.site, false, 'Enter a web address (https://…).'],
    ['2026-12-12', P.day, false, ''],
    ['2026-02-31', P.day, false, 'Enter a date (YYYY-MM-DD).'],
    ['12/12/2026', P.day, false, 'Enter a date (YYYY-MM-DD).'],
    ['2026-12-12T11:00:00Z', P.at, false, ''],
    ['2026-12-12T11:00:00+01:00', P.at, false, ''],
    ['2026-12-12T11:00', P.at, false, 'Enter a date and time.'],
    [3, P.seats, false, ''],
    [2.5, P.seats, false, 'Enter a whole number.'],
    [9, P.seats, false, 'At most 7.'],
    ['3', P.seats, false, 'Enter a number.'],
    [-1, P.budget, false, 'At least 0.'],
    [true, P.newsletter, false, ''],
    ['yes', P.newsletter, false, 'Not a valid value.'],
    ['xle', P.trim, false, ''],
    ['XLE', P.trim, false, 'Choose one of the options.'],
    ['civic', P.car, true, ''],
    ['Honda Civic', P.car, true, 'Choose one of the options.'],
    [['gps'], P.extras, false, ''],
    [['gps', 'tow'], P.extras, false, 'Choose at most 1.'],
    [['roof'], P.extras, false, 'Choose one of the options.'],
    ['gps', P.extras, false, 'Choose one of the options.'],
    [['sport', 'winter'], P.packs, false, ''],
    [['sport', 'sport'], P.packs, false, 'Choose one of the options.'],
    [[], P.packs, false, 'Choose at least 1.'],
  ];
  for (const [v, p, required, want] of cases) assert.equal(checkField(v, p, required), want, `${JSON.stringify(v)} for ${JSON.stringify(p)}`);
  assert.deepEqual(validateContent({ name: 'Jane', email: 'jane@example.com', car: 'rav4', seats: 2 }, SCHEMA), {});
  assert.deepEqual(validateContent({ name: 'J', car: 'audi', extra: 1 }, SCHEMA), {
    extra: 'Not asked for.',
    name: 'At least 2 characters.',
    email: 'Required.',
    car: 'Choose one of the options.',
  });
});

test('checkAnswer passes accept (with content that fits), decline and cancel; anything else is refused', () => {
  const req = checkRequest(form());
  const content = { name: 'Jane', email: 'jane@example.com', car: 'civic' };
  assert.deepEqual(checkAnswer({ action: 'accept', content }, req), { action: 'accept', content });
  assert.deepEqual(checkAnswer({ action: 'decline', content }, req), { action: 'decline' });
  assert.deepEqual(checkAnswer({ action: 'cancel' }, req), { action: 'cancel' });
  assert.throws(() => checkAnswer({ action: 'accept', content: { ...content, email: 'nope' } }, req), /content\.email: Enter an email address\./);
  assert.throws(() => checkAnswer({ action: 'ok' }, req), /action "ok" is not accept, decline or cancel/);
  assert.throws(() => checkAnswer(undefined, req), TypeError);
  const url = checkRequest({ mode: 'url', message: 'Pay', url: 'https://pay.example/' });
  assert.deepEqual(checkAnswer({ action: 'accept', content: { x: 1 } }, url), { action: 'accept' });
});

let nextId = 7000;

function setup() {
  const socket = FakeSocket.opened();
  const logger = quietLogger();
  const host = new ToolHost({ version: '1', logger });
  host.attach(new Peer(socket, { logger }));
  /** @param {unknown} params */
  const call = (params) => {
    const id = nextId++;
    socket.receive({ jsonrpc: '2.0', id, method: Method.ToolsCall, params });
    return { id, reply: socket.next((m) => m.id === id && !('method' in m)) };
  };
  return { socket, host, call };
}

test('a tool asks with requestUserInput: the handler gets the checked request, progress keeps the call alive, the tool gets the answer', async () => {
  const { socket, host, call } = setup();
  /** @type {any[]} */
  const asked = [];
  host.setInputHandler((req) => (asked.push(req), { action: 'accept', content: { name: 'Jane Doe', email: 'jane@example.com', car: 'civic' } }));
  host.registerTool({
    name: 'book',
    title: 'Book a test drive',
    description: 'Books',
    execute: async (_args, client) => {
      const answer = await client.requestUserInput(form());
      return answer;
    },
  });
  const { reply } = call({ name: 'book', arguments: {}, _meta: { progressToken: 'p1' } });
  const r = await reply;
  assert.deepEqual(r.result.structuredContent, { action: 'accept', content: { name: 'Jane Doe', email: 'jane@example.com', car: 'civic' } });
  assert.equal(asked.length, 1);
  assert.equal(asked[0].mode, 'form');
  assert.equal(asked[0].message, 'Who is driving?');
  assert.equal(asked[0].name, 'book');
  assert.equal(asked[0].tool.title, 'Book a test drive', 'the form is labelled with the tool');
  assert.ok(asked[0].signal instanceof AbortSignal);
  const progress = socket.messages().filter((m) => m.method === Method.Progress);
  assert.deepEqual(progress.map((m) => [m.params.progressToken, m.params.message]), [['p1', INPUT_PROGRESS_MESSAGE]]);
});

test('a bad request rejects with a TypeError and the handler is never asked; a wrong answer is refused too', async () => {
  const { host, call } = setup();
  let asked = 0;
  /** @type {any} */
  let answer = { action: 'accept' };
  host.setInputHandler(() => (asked++, answer));
  /** @type {unknown[]} */
  const errors = [];
  host.registerTool({
    name: 'ask',
    description: 'Asks',
    execute: async (/** @type {any} */ args, client) => {
      try {
        return await client.requestUserInput(args.request);
      } catch (err) {
        errors.push(err);
        throw err;
      }
    },
  });
  const bad = [
    'form',
    { mode: 'popup', message: 'x' },
    { mode: 'url', message: 'Pay', url: 'javascript:alert(1)' },
    form({ type: 'object', properties: { a: { type: 'object' } } }),
  ];
  for (const request of bad) {
    const r = await call({ name: 'ask', arguments: { request } }).reply;
    assert.equal(r.result.isError, true);
    assert.match(r.result.content[0].text, /^requestUserInput: /);
  }
  assert.equal(asked, 0, 'nothing was shown');
  assert.ok(errors.every((e) => e instanceof TypeError));
  answer = { action: 'accept', content: { name: 'J' } };
  const r = await call({ name: 'ask', arguments: { request: form() } }).reply;
  assert.match(r.result.content[0].text, /content\.name: At least 2 characters\./);
});

test('an aborted call rejects requestUserInput with the abort reason and aborts the handler\'s signal', async () => {
  const { socket, host, call } = setup();
  /** @type {AbortSignal|null} */
  let shown = null;
  host.setInputHandler((req) => {
    shown = req.signal;
    return new Promise(() => {}); // the visitor never answers
  });
  /** @type {unknown[]} */
  const seen = [];
  host.registerTool({
    name: 'ask',
    description: 'Asks',
    execute: async (_args, client) => {
      try {
        return await client.requestUserInput({ mode: 'url', message: 'Pay', url: 'https://pay.example/' });
      } catch (err) {
        seen.push(err);
        throw err;
      }
    },
  });
  const { id, reply } = call({ name: 'ask', arguments: {} });
  for (let i = 0; i < 1000 && !shown; i++) await new Promise((r) => setTimeout(r, 1));
  assert.ok(shown, 'the handler was asked');
  socket.receive({ jsonrpc: '2.0', method: Method.Cancelled, params: { requestId: id, reason: 'stop' } });
  for (let i = 0; i < 1000 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 1));
  assert.equal(/** @type {any} */ (shown).aborted, true, 'the form is told to close');
  assert.equal(seen.length, 1);
  assert.equal(seen[0], /** @type {any} */ (shown).reason, 'rejected with the abort reason');
  void reply.catch(() => {});
});

test('interactive mode runs the callback like requestUserInteraction; with no handler, form and url reject with NotSupportedError', async () => {
  const { host, call } = setup();
  host.registerTool({
    name: 'ask',
    description: 'Asks',
    execute: async (/** @type {any} */ args, client) => {
      if (args.interactive) return client.requestUserInput({ mode: 'interactive', callback: async () => 'picked blue' });
      return client.requestUserInput({ mode: 'url', message: 'Pay', url: 'https://pay.example/' });
    },
  });
  assert.deepEqual((await call({ name: 'ask', arguments: { interactive: true } }).reply).result.content, [{ type: 'text', text: 'picked blue' }]);
  const r = await call({ name: 'ask', arguments: {} }).reply;
  assert.equal(r.result.isError, true);
  assert.match(r.result.content[0].text, /no user input UI is available/);
});

test('executeTool (a local run, no agent) gives the tool requestUserInput too', async () => {
  const host = new ToolHost({ logger: quietLogger() });
  /** @type {any[]} */
  const asked = [];
  host.setInputHandler((req) => (asked.push(req), { action: 'decline' }));
  host.registerTool({
    name: 'ask',
    description: 'Asks',
    execute: (_args, client) => client.requestUserInput({ mode: 'url', message: 'Pay', url: 'https://pay.example/' }),
  });
  assert.deepEqual(await host.executeTool('ask', {}), { action: 'decline' });
  assert.equal(asked[0].url, 'https://pay.example/');
  await assert.rejects(() => host.executeTool('ask', {}, { signal: AbortSignal.abort(new Error('gone')) }), /gone/);
});

test('setInputHandler takes a function or null', () => {
  const host = new ToolHost({ logger: quietLogger() });
  assert.throws(() => host.setInputHandler(/** @type {any} */ ('show')), /setInputHandler: expected a function or null/);
  host.setInputHandler(null);
});
