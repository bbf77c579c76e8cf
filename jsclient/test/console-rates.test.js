// The console's health rates (agentsvc/console/static/rates.js) behind a non-sticky balancer:
// samples alternate between two replicas, each fresh about itself and a presence behind
// about the other; a replica restarts; a replica appears and one goes. The increases are never
// negative and add up to what the replicas counted.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ClusterCounters, counters, increase, sumOf } from '../../agentsvc/console/static/rates.js';

/** One replica's health with `turns` ended turns and `tokens` tokens at time t. */
const rep = (replica, time, turns, tokens = 0) => ({
  replica, time, turns: { end: turns }, tokens: { input: tokens }, refused: {}, tokensBySite: { shop: tokens },
  modelCalls: turns, modelSeconds: turns / 2, modelBySite: { shop: { calls: turns, seconds: turns / 2 } },
  tools: [{ site: 'shop', tool: 'filter_cars', ok: turns, errors: 0, timed: turns, seconds: 1 }],
});

test('a counter that drops restarted: the new value is the increase', () => {
  assert.equal(increase(10, 14), 4);
  assert.equal(increase(10, 3), 3);
  assert.equal(increase(0, 0), 0);
});

test('alternating replicas: no negative increase, and the increases sum to what both counted', () => {
  const c = new ClusterCounters();
  // A counts 2 turns every second, B 1 a second; each answer has the answering replica now
  // and the other as its presence of up to 5 s before (the balancer alternates).
  const count = { a: (t) => 2 * t, b: (t) => t };
  let total = 0;
  let first = true;
  /** @type {Record<string, {t: number, v: number}>} */
  const firstSeen = {}, lastSeen = {};
  for (let t = 10; t <= 60; t += 2) {
    const fresh = (t / 2) % 2 === 0 ? 'a' : 'b';
    const stale = t - (t % 5) - (fresh === 'a' ? 0 : 1); // the other's last presence
    const x = { replicas: ['a', 'b'].map((r) => rep(r, r === fresh ? t : stale, count[r](r === fresh ? t : stale))) };
    for (const r of x.replicas) {
      firstSeen[r.replica] ??= { t: r.time, v: r.turns.end };
      if (!lastSeen[r.replica] || r.time > lastSeen[r.replica].t) lastSeen[r.replica] = { t: r.time, v: r.turns.end };
    }
    const inc = c.add(x);
    for (const [k, v] of Object.entries(inc)) assert.ok(v >= 0, `${k} increased by ${v} at ${t}`);
    if (first) assert.deepEqual(inc, {}, 'the first sample is no increase');
    first = false;
    total += sumOf(inc, 'turns\u0000');
  }
  // From the first values seen to the last (newest) seen of each replica.
  assert.equal(total, lastSeen.a.v - firstSeen.a.v + lastSeen.b.v - firstSeen.b.v);
  assert.ok(total > 100);
});

test('a restarted replica (same name) counts from zero; a new one starts counting from its second sample; a gone one is forgotten', () => {
  const c = new ClusterCounters();
  c.add({ replicas: [rep('a', 1000, 50, 900)] });
  let inc = c.add({ replicas: [rep('a', 2000, 3, 100)] }); // restarted: 3 turns since
  assert.equal(inc['turns\u0000end'], 3);
  assert.equal(inc['tokens\u0000input'], 100);
  assert.equal(inc['site\u0000shop\u0000calls'], 3);
  inc = c.add({ replicas: [rep('a', 3000, 5, 100), rep('b', 3000, 40, 1000)] });
  assert.equal(inc['turns\u0000end'], 2, 'b is new: what it counted before is not an increase now');
  inc = c.add({ replicas: [rep('a', 4000, 6), rep('b', 4000, 41)] });
  assert.equal(inc['turns\u0000end'], 2);
  inc = c.add({ replicas: [rep('a', 5000, 7)] }); // b's presence expired
  assert.equal(inc['turns\u0000end'], 1);
  assert.deepEqual([...c.last.keys()], ['a']);
});

test('an older or repeated entry of a replica adds nothing', () => {
  const c = new ClusterCounters();
  c.add({ replicas: [rep('a', 2000, 10)] });
  assert.deepEqual(c.add({ replicas: [rep('a', 1000, 4)] }), {}); // an old presence, read after a fresh answer
  assert.deepEqual(c.add({ replicas: [rep('a', 2000, 10)] }), {});
  assert.equal(c.add({ replicas: [rep('a', 3000, 12)] })['turns\u0000end'], 2);
});

test('an answer of one replica without a cluster (no replicas list) is followed as one replica', () => {
  const c = new ClusterCounters();
  c.add({ time: 1, turns: { end: 1 } });
  assert.deepEqual(c.add({ time: 2, turns: { end: 4 } }), { 'turns\u0000end': 3 });
  assert.deepEqual(counters({ turns: { end: 'x' }, modelCalls: NaN }), {}, 'what is not a number is ignored');
});

test('addEach gives each replica its own increases; add is their sum', () => {
  const c = new ClusterCounters();
  c.addEach({ replicas: [rep('a', 1, 10), rep('b', 1, 20)] });
  const each = c.addEach({ replicas: [rep('a', 2, 13), rep('b', 1, 20)] }); // b's presence not renewed yet
  assert.deepEqual(Object.keys(each), ['a']);
  assert.equal(each.a['turns\u0000end'], 3);
  assert.equal(c.add({ replicas: [rep('a', 2, 13), rep('b', 2, 25)] })['turns\u0000end'], 5);
});
