// Unit tests of the widget's overridable strings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_STRINGS, resolveStrings, parseStringsAttribute, format } from '../strings.js';

test('resolveStrings layers overrides, later wins, ignores non-strings', () => {
  const s = resolveStrings({ title: 'A', send: 'Go' }, null, undefined, { title: 'B', stop: 3 }, { custom: 'x' });
  assert.equal(s.title, 'B');
  assert.equal(s.send, 'Go');
  assert.equal(s.stop, DEFAULT_STRINGS.stop);
  assert.equal(s.custom, 'x');
  assert.equal(DEFAULT_STRINGS.title, 'Assistant', 'defaults must not be mutated');
  assert.throws(() => { DEFAULT_STRINGS.title = 'x'; }, TypeError);
});

test('every default is a non-empty string', () => {
  for (const [k, v] of Object.entries(DEFAULT_STRINGS)) {
    assert.equal(typeof v, 'string', k);
    assert.ok(v.length > 0, k);
  }
});

test('parseStringsAttribute', (t) => {
  const warnings = [];
  t.mock.method(console, 'warn', (...a) => warnings.push(a));
  assert.deepEqual(parseStringsAttribute('{"title":"Hi"}'), { title: 'Hi' });
  assert.equal(parseStringsAttribute(null), undefined);
  assert.equal(parseStringsAttribute(''), undefined);
  assert.equal(parseStringsAttribute('{bad'), undefined);
  assert.equal(parseStringsAttribute('["a"]'), undefined);
  assert.equal(warnings.length, 2);
});

test('format fills placeholders and keeps unknown ones', () => {
  const cases = [
    ['Running {name}…', { name: 'search_cars' }, 'Running search_cars…'],
    ['{a}{a} {b}', { a: 1 }, '11 {b}'],
    ['no vars', undefined, 'no vars'],
    ['{toString}', {}, '{toString}'],
  ];
  for (const [tpl, vars, want] of cases) assert.equal(format(tpl, vars), want);
});

test('what visitors read names no server setting (a refused origin is for the developer console)', () => {
  for (const [k, v] of Object.entries(DEFAULT_STRINGS)) {
    assert.doesNotMatch(v, /--[a-z]|BYOMCP_|sites\.json|origin/i, `${k}: ${v}`);
  }
  assert.equal(DEFAULT_STRINGS.refusedOrigin, 'The assistant is not available on this site.');
});
