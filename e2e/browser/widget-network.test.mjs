// What the widget costs on the wire (issue 19, point 12), under a slow phone network emulated
// through CDP (Network.emulateNetworkConditions: 150 ms RTT, 1.6 Mbps): the first page of a
// visit loads at most 36 KB of widget (compressed, headers included; 35,553 bytes measured on
// 2026-12-03 once esbuild bundled it, 51,170 before; 36,491 with WebMCP's frames) in at most 4 requests, with no import
// waterfall (every file is requested as soon as widget.js has arrived); the next page at most
// 2 KB (the rest from the cache, widget.js revalidated). The launcher's appearance (widget.js
// shows it before the rest of the client has arrived) and the moment the panel's code has run
// are measured with the page's own Performance timeline and reported (a duration on a shared
// machine is a measure, not an assertion).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, newPage, waitConnected } from './harness.mjs';

const THROTTLE = { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 };

let stack;
before(async () => {
  stack = await startStack({ script: () => ({ text: 'ok' }) });
});
after(async () => {
  await stack?.close();
});

/**
 * Records every /byomcp/ response of the page through CDP: its URL, status, bytes on the wire
 * (headers and body, as the network layer counts them), whether it came from a cache, and
 * which response it was requested after.
 * @param {import('playwright-core').Page} page
 */
async function recordWidgetTraffic(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', THROTTLE);
  /** @type {Map<string, {url: string, status: number, bytes: number, cached: boolean, sentAt: number, doneAt: number, encoding: string}>} */
  const byId = new Map();
  cdp.on('Network.requestWillBeSent', (e) => {
    if (!e.request.url.includes('/byomcp/')) return;
    byId.set(e.requestId, { url: e.request.url, status: 0, bytes: 0, cached: false, sentAt: e.timestamp, doneAt: 0, encoding: '' });
  });
  // The status on the wire: responseReceived may give a revalidated response the cached
  // response's 200 (Chromium merges a 304 into the entry it revalidated, depending on timing);
  // responseReceivedExtraInfo has the raw status line, and may come before or after the others.
  /** @type {Map<string, number>} */
  const wireStatus = new Map();
  cdp.on('Network.responseReceivedExtraInfo', (e) => wireStatus.set(e.requestId, e.statusCode));
  cdp.on('Network.requestServedFromCache', (e) => {
    const r = byId.get(e.requestId);
    if (r) r.cached = true;
  });
  cdp.on('Network.responseReceived', (e) => {
    const r = byId.get(e.requestId);
    if (!r) return;
    r.status = e.response.status;
    r.cached ||= e.response.fromDiskCache || e.response.fromPrefetchCache || e.response.fromServiceWorker;
    r.encoding = e.response.headers['content-encoding'] ?? e.response.headers['Content-Encoding'] ?? '';
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = byId.get(e.requestId);
    if (!r) return;
    r.bytes = e.encodedDataLength;
    r.doneAt = e.timestamp;
  });
  return {
    requests: () => [...byId].map(([id, r]) => ({ ...r, status: wireStatus.get(id) ?? r.status })),
    detach: () => cdp.detach(),
  };
}

/**
 * When the launcher was first painted, in ms after navigation start (Performance timeline).
 * @param {import('playwright-core').Page} page
 * @param {string} [name] the mark: byomcp:launcher, or byomcp:panel (the panel's code has run)
 */
function launcherTime(page, name = 'byomcp:launcher') {
  return page.evaluate((n) => {
    const mark = performance.getEntriesByName(n)[0];
    return mark ? Math.round(mark.startTime) : -1;
  }, name);
}

test('first page <= 36 KB of widget in <= 4 requests with no waterfall, next page <= 2 KB (150 ms RTT, 1.6 Mbps)', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    const first = await recordWidgetTraffic(page);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    const r1 = first.requests();
    const bytes1 = r1.reduce((n, r) => n + r.bytes, 0);
    const t1 = await launcherTime(page);
    const p1 = await launcherTime(page, 'byomcp:panel');
    await first.detach();

    // Every file is on the wire compressed, and none waits for another file than widget.js.
    const widget = r1.find((r) => new URL(r.url).pathname === '/byomcp/widget.js');
    assert.ok(widget, 'widget.js was loaded');
    // preload.js is the classic script of the page's <head> (before any tool script), not a module.
    const modules = r1.filter((r) => r !== widget && new URL(r.url).pathname !== '/byomcp/preload.js');
    // esbuild's bundle (jsclient/assets.go): boot's file and the chunk it shares with foreign.js.
    assert.ok(modules.length >= 1, `${modules.length} files behind widget.js`);
    assert.ok(r1.length <= 4, `first page: ${r1.length} requests of widget, want <= 4: ${r1.map((r) => new URL(r.url).pathname)}`);
    for (const r of r1) assert.match(r.encoding, /^(br|gzip)$/, `${r.url} is sent ${r.encoding || 'uncompressed'}`);
    const lastSent = Math.max(...modules.map((r) => r.sentAt));
    const firstDone = Math.min(...modules.map((r) => r.doneAt));
    assert.ok(lastSent <= firstDone, 'every module is requested before any module has arrived (no import waterfall)');
    assert.ok(bytes1 <= 36 * 1024, `first page: ${bytes1} bytes of widget, want <= 36864`);

    const next = await recordWidgetTraffic(page);
    await page.goto(stack.server.url + '/financing.html');
    await waitConnected(page);
    const r2 = next.requests();
    const bytes2 = r2.reduce((n, r) => n + r.bytes, 0);
    const t2 = await launcherTime(page);
    const p2 = await launcherTime(page, 'byomcp:panel');
    await next.detach();
    const onWire = r2.filter((r) => !r.cached);
    assert.ok(bytes2 <= 2 * 1024, `next page: ${bytes2} bytes of widget, want <= 2048 (${JSON.stringify(onWire)})`);
    assert.deepEqual(
      onWire.map((r) => [new URL(r.url).pathname, r.status]).sort(),
      [
        ['/byomcp/preload.js', 304],
        ['/byomcp/widget.js', 304],
      ],
    );

    console.log(`# widget on the wire: first page ${r1.length} requests, ${bytes1} bytes, launcher at ${t1} ms, panel at ${p1} ms; next page ${onWire.length} on the wire, ${bytes2} bytes, launcher at ${t2} ms, panel at ${p2} ms (150 ms RTT, 1.6 Mbps)`);
    assert.ok(t1 > 0 && t2 > 0, 'the launcher marks its first paint');
    assert.ok(p1 > 0 && p2 > 0, 'the panel marks when its code has run');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
