// The MCP App host's policy and document (mcp-app.js): default-deny, with only the origins the
// resource declares (SEP-1865, "Security"), and the policy first in the app's document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appCSP, appDocument } from '../mcp-app.js';

test('an app with no csp gets no network at all', () => {
  const p = appCSP(undefined);
  assert.match(p, /^default-src 'none'; /);
  assert.match(p, /connect-src 'none'/);
  assert.match(p, /frame-src 'none'/);
  assert.match(p, /form-action 'none'/);
  assert.doesNotMatch(p, /https?:/);
});

test('declared origins are allowed where the spec maps them; anything else is dropped', () => {
  const p = appCSP({
    connectDomains: ['https://api.example.com', "https://x.example.com; script-src *", "'unsafe-eval'"],
    resourceDomains: ['https://*.cdn.example.com'],
    frameDomains: ['https://www.youtube.com'],
  });
  assert.match(p, /connect-src https:\/\/api\.example\.com(;|$)/);
  assert.match(p, /script-src 'unsafe-inline' https:\/\/\*\.cdn\.example\.com;/);
  assert.match(p, /img-src data: blob: https:\/\/\*\.cdn\.example\.com;/);
  assert.match(p, /frame-src https:\/\/www\.youtube\.com;/);
  assert.doesNotMatch(p, /unsafe-eval|x\.example\.com|script-src \*/);
});

test('the policy comes first in the document, after its doctype', () => {
  assert.match(appDocument('<!DOCTYPE html><html><p>x</p>', "default-src 'none'"), /^<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><html>/);
  assert.match(appDocument('<p>x</p>', 'a"b'), /^<meta http-equiv="Content-Security-Policy" content="a&quot;b"><p>x<\/p>$/);
});
