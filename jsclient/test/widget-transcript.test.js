// Unit tests of the widget's pure parts: rebuilding the transcript from stored messages,
// argument pretty-printing and the agent URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupMessages, prettyJSON } from '../transcript.js';
import { agentURL } from '../boot.js';
import { findScript, LAUNCHER_STYLE, LAUNCHER_ICON, LAUNCHER_LABEL } from '../widget.js';
import { STYLE, ICON_CHAT } from '../chat-style.js';
import { DEFAULT_STRINGS } from '../strings.js';

const MESSAGES = [
  { role: 'user', content: 'SUVs please', turnId: 't1' },
  { role: 'assistant', content: 'Searching.', toolCalls: [{ id: 'a', name: 'search_cars', arguments: '{"bodyType":"suv"}' }], turnId: 't1' },
  { role: 'tool', content: 'Showing 7 cars', toolCallId: 'a', name: 'search_cars', turnId: 't1' },
  { role: 'assistant', content: 'Here are 7 SUVs.', turnId: 't1' },
  { role: 'user', content: 'open the RAV4', turnId: 't2' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'b', name: 'select_car', arguments: { carId: 'c01' } }], turnId: 't2' },
  { role: 'tool', content: [{ type: 'text', text: 'Opening' }], toolCallId: 'b', name: 'select_car', turnId: 't2' },
];

test('groupMessages rebuilds turns', () => {
  const turns = groupMessages(MESSAGES);
  assert.equal(turns.length, 2);
  const [t1, t2] = turns;
  assert.equal(t1.turnId, 't1');
  assert.equal(t1.userText, 'SUVs please');
  assert.equal(t1.finished, true);
  assert.deepEqual(t1.items.map((i) => i.kind), ['text', 'tool', 'text']);
  assert.equal(t1.items[1].result, 'Showing 7 cars');
  assert.equal(t2.finished, false);
  assert.deepEqual([...t2.calls], ['b']);
  assert.deepEqual([...t2.results], ['b']);
  assert.deepEqual(t2.items.map((i) => i.kind), ['tool'], 'empty assistant text is not shown');
  assert.equal(t2.items[0].result, 'Opening');
});

test('groupMessages reads how a turn ended from the stored messages (end)', () => {
  const turns = groupMessages([
    { role: 'user', content: 'tell me slowly', turnId: 't1' },
    { role: 'assistant', content: 'Slow fact 1.', turnId: 't1', end: { stopReason: 'cancelled' } },
    { role: 'user', content: 'and now?', turnId: 't2' },
    // A turn that ended before adding anything: an assistant message with no content carries the mark.
    { role: 'assistant', turnId: 't2', end: { stopReason: 'error', error: 'the model API rejected the request' } },
    { role: 'user', content: 'thanks', turnId: 't3' },
    { role: 'assistant', content: 'You are welcome.', turnId: 't3' },
    { role: 'user', content: 'odd', turnId: 't4' },
    { role: 'assistant', content: 'x', turnId: 't4', end: { stopReason: 7 } },
  ]);
  assert.deepEqual(
    turns.map((t) => [t.turnId, t.end, t.finished, t.items.length]),
    [
      ['t1', { stopReason: 'cancelled', error: '' }, false, 1],
      ['t2', { stopReason: 'error', error: 'the model API rejected the request' }, false, 0],
      ['t3', null, true, 1],
      ['t4', null, true, 1],
    ],
  );
});

test('groupMessages tolerates odd input', () => {
  assert.deepEqual(groupMessages(undefined), []);
  assert.deepEqual(groupMessages([null, 3]), []);
  const turns = groupMessages([
    { role: 'assistant', content: 'hello' },
    { role: 'tool', content: 'orphan result', toolCallId: 'x', name: 'n' },
    { role: 'assistant', content: 'next turn', turnId: 'tB' },
  ]);
  assert.equal(turns.length, 1, 'a turnId appearing on an untagged turn names it');
  assert.equal(turns[0].turnId, 'tB');
  assert.equal(turns[0].userText, null);
  const t = groupMessages([{ role: 'assistant', content: 'a', turnId: 'x' }, { role: 'assistant', content: 'b', turnId: 'y' }]);
  assert.deepEqual(t.map((x) => x.turnId), ['x', 'y'], 'a new turnId starts a new turn');
});

test('prettyJSON', () => {
  const cases = [
    ['{"a":1}', '{\n  "a": 1\n}'],
    [{ a: [1] }, '{\n  "a": [\n    1\n  ]\n}'],
    ['plain text', 'plain text'],
    ['{not json', '{not json'],
    [undefined, ''],
    [null, ''],
    [42, '42'],
  ];
  for (const [v, want] of cases) assert.equal(prettyJSON(v), want, JSON.stringify(v));
});

test('agentURL', () => {
  const cases = [
    ['https://shop.test/byomcp/widget.js', undefined, 'wss://shop.test/v1/ws'],
    ['http://127.0.0.1:8080/byomcp/widget.js', null, 'ws://127.0.0.1:8080/v1/ws'],
    ['https://shop.test/byomcp/widget.js', 'wss://agent.test/v1/ws', 'wss://agent.test/v1/ws'],
    ['https://shop.test/byomcp/widget.js', '/custom/ws', 'wss://shop.test/custom/ws'],
    ['http://a.test/byomcp/widget.js', 'https://b.test/v1/ws', 'wss://b.test/v1/ws'],
  ];
  for (const [script, agent, want] of cases) assert.equal(agentURL(script, agent), want);
});

test('findScript matches the module URL', () => {
  const scripts = [{ src: 'http://a.test/other.js' }, { src: 'http://a.test/byomcp/widget.js', dataset: { agent: 'x' } }];
  const doc = { querySelectorAll: () => scripts };
  assert.equal(findScript(doc, 'http://a.test/byomcp/widget.js'), scripts[1]);
  assert.equal(findScript(doc, 'http://a.test/nope.js'), null);
});

test('the launcher widget.js shows before the panel code is there looks like the panel\'s own', () => {
  // widget.js imports nothing (so it runs at once): its copies must stay the panel's text.
  assert.ok(STYLE.startsWith(LAUNCHER_STYLE), 'chat-style.js STYLE starts with widget.js LAUNCHER_STYLE');
  assert.match(LAUNCHER_STYLE, /\.launcher \{/);
  assert.equal(LAUNCHER_ICON, ICON_CHAT);
  assert.equal(LAUNCHER_LABEL, DEFAULT_STRINGS.launcherOpen);
});
