// The console's refresh coalescing (agentsvc/console/static/refresh.js), on a fake clock with
// a fake fetch that takes its time: a visitor's quick turns ask for the tab list hundreds of
// times, the server sees one request at a time, at most one a second, and the last ask is
// answered by a request that started after it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { coalesce } from '../../agentsvc/console/static/refresh.js';

/** A fake clock: timers run in order of their time when advanced. */
function fakeClock() {
  let t = 0;
  /** @type {{at: number, fn: () => void}[]} */
  let timers = [];
  const flush = () => new Promise((r) => setImmediate(r));
  return {
    now: () => t,
    /** @param {() => void} fn @param {number} ms */
    later: (fn, ms) => { timers.push({ at: t + ms, fn }); },
    /** Moves the clock to `to`, running the timers due and the promises they settle. */
    async advance(to) {
      for (;;) {
        await flush();
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at > to) break;
        timers = timers.slice(1);
        t = next.at;
        next.fn();
      }
      t = to;
      await flush();
    },
  };
}

test('quick turns: one request in flight, at most one a second, the last ask answered', async () => {
  const clock = fakeClock();
  let inFlight = 0, maxInFlight = 0;
  /** @type {number[]} */
  const starts = [];
  // The fake fetch of /console/api/tabs: 300 ms to answer.
  const fetchTabs = () => {
    starts.push(clock.now());
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return new Promise((resolve) => clock.later(() => { inFlight--; resolve(undefined); }, 300));
  };
  const refresh = coalesce(fetchTabs, { minGap: 1000, now: clock.now, later: clock.later });
  // 245 asks in 20 s (a turn_start and a turn_end every ~160 ms), as in issue 36.
  const asks = [];
  for (let i = 0; i < 245; i++) {
    const at = Math.round((i * 20000) / 245);
    await clock.advance(at);
    asks.push(at);
    refresh();
  }
  await clock.advance(30000);
  assert.equal(maxInFlight, 1, 'requests in flight at once');
  for (let i = 1; i < starts.length; i++) {
    assert.ok(starts[i] - starts[i - 1] >= 1000, `requests ${i - 1} and ${i} started ${starts[i] - starts[i - 1]} ms apart, want ≥ 1000`);
  }
  assert.ok(starts.length <= 22, `${starts.length} requests for 245 asks in 20 s, want at most 22`);
  assert.ok(starts.at(-1) >= asks.at(-1), `the last request started at ${starts.at(-1)}, before the last ask at ${asks.at(-1)}`);
});

test('a lone ask runs at once; a failed run does not stop the next', async () => {
  const clock = fakeClock();
  let runs = 0;
  const refresh = coalesce(async () => { runs++; if (runs === 1) throw new Error('network'); }, { now: clock.now, later: clock.later });
  refresh();
  await clock.advance(0);
  assert.equal(runs, 1);
  refresh();
  await clock.advance(999);
  assert.equal(runs, 1, 'a second ask within the second waits');
  await clock.advance(1000);
  assert.equal(runs, 2, 'and runs when the second is over');
});
