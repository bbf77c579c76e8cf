// The widget's reading of GET /v1/site (the site's strings, greeting and suggestions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteURL, loadSite } from '../boot.js';

test('siteURL is /v1/site on the agent host, http(s) for ws(s)', () => {
  assert.equal(siteURL('wss://agent.example/v1/ws'), 'https://agent.example/v1/site');
  assert.equal(siteURL('ws://127.0.0.1:8080/v1/ws'), 'http://127.0.0.1:8080/v1/site');
});

/** @param {number} status @param {unknown} body */
const fakeFetch = (status, body) => async (/** @type {string} */ url, /** @type {any} */ init) => {
  assert.equal(init.credentials, 'omit');
  return { ok: status < 300, status, json: async () => body };
};

test('loadSite keeps strings and suggestions that are strings', async () => {
  const got = await loadSite('http://x/v1/site', /** @type {any} */ (fakeFetch(200, {
    site: 'shop', strings: { greeting: 'Hi!', title: 'Shop', bad: 5 }, suggestions: ['SUVs', 3],
  })));
  assert.deepEqual(got, { strings: { greeting: 'Hi!', title: 'Shop' }, suggestions: ['SUVs'] });
});

test('loadSite gives {} for an origin without a site, an error status, bad JSON or a network failure', async () => {
  assert.deepEqual(await loadSite('u', /** @type {any} */ (fakeFetch(200, {}))), {});
  assert.deepEqual(await loadSite('u', /** @type {any} */ (fakeFetch(500, { strings: { a: 'b' } }))), {});
  assert.deepEqual(await loadSite('u', /** @type {any} */ (async () => ({ ok: true, json: async () => { throw new SyntaxError('x'); } }))), {});
  assert.deepEqual(await loadSite('u', /** @type {any} */ (async () => { throw new TypeError('offline'); })), {});
  assert.deepEqual(await loadSite('u', /** @type {any} */ (fakeFetch(200, { strings: ['a'], suggestions: 'x' }))), {});
});
