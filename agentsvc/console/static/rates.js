// @ts-check
// Increases of the health counters of several replicas between two samples of
// /console/api/metrics. Behind a non-sticky balancer successive samples come from different
// replicas, each with its own counters and the others' as their last presence said (each
// replica's entry carries its own time). So the counters are followed per replica: a
// replica's entry counts only when it is newer than the last one seen of that replica (an
// older presence read again is skipped), a drop in a counter is a restart of that counter
// (the new value is the increase, as Prometheus's rate() does), and the increases are summed
// over the replicas. An increase is never negative, and over several samples the sum of the
// increases is the sum of what every replica counted.

/**
 * One replica's counters by key ("turns\0end", "modelCalls", "site\0shop\0calls", …).
 * @param {any} h one replica's Health
 * @returns {Record<string, number>}
 */
export function counters(h) {
  /** @type {Record<string, number>} */
  const out = {};
  /** @param {string} k @param {unknown} v */
  const put = (k, v) => {
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = (out[k] ?? 0) + v;
  };
  for (const group of ['turns', 'refused', 'tokens', 'tokensBySite']) {
    for (const [k, v] of Object.entries(h?.[group] ?? {})) put(`${group}\u0000${k}`, v);
  }
  for (const [site, m] of Object.entries(h?.modelBySite ?? {})) {
    put(`site\u0000${site}\u0000calls`, /** @type {any} */ (m)?.calls);
    put(`site\u0000${site}\u0000seconds`, /** @type {any} */ (m)?.seconds);
  }
  put('modelCalls', h?.modelCalls);
  put('modelSeconds', h?.modelSeconds);
  for (const t of h?.tools ?? []) {
    for (const f of ['ok', 'errors', 'timed', 'seconds']) put(`tool\u0000${t.site}\u0000${t.tool}\u0000${f}`, t[f]);
  }
  return out;
}

/**
 * The increase of a counter from a to b: a drop means it restarted from zero.
 * @param {number} a
 * @param {number} b
 */
export const increase = (a, b) => (b >= a ? b - a : b);

/** Follows the replicas' counters from one sample to the next. */
export class ClusterCounters {
  constructor() {
    /** @type {Map<string, {time: number, c: Record<string, number>}>} */
    this.last = new Map();
  }

  /**
   * Takes one answer of /console/api/metrics and returns the increases since the previous
   * one, summed over the replicas. A replica seen for the first time adds nothing (what it
   * counted before is not an increase of this interval); a replica no longer in the answer
   * is forgotten.
   * @param {any} x
   * @returns {Record<string, number>}
   */
  add(x) {
    /** @type {Record<string, number>} */
    const inc = {};
    for (const each of Object.values(this.addEach(x))) {
      for (const [k, v] of Object.entries(each)) inc[k] = (inc[k] ?? 0) + v;
    }
    return inc;
  }

  /**
   * As add, by replica: the increases of each replica whose entry is newer than the last one
   * seen of it.
   * @param {any} x
   * @returns {Record<string, Record<string, number>>}
   */
  addEach(x) {
    const replicas = Array.isArray(x?.replicas) && x.replicas.length ? x.replicas : [x];
    /** @type {Record<string, Record<string, number>>} */
    const out = {};
    const seen = new Set();
    for (const r of replicas) {
      const name = String(r?.replica ?? '');
      seen.add(name);
      const time = Number(r?.time);
      const prev = this.last.get(name);
      if (!Number.isFinite(time) || (prev && time <= prev.time)) continue;
      const c = counters(r);
      this.last.set(name, { time, c });
      if (!prev) continue;
      /** @type {Record<string, number>} */
      const inc = {};
      for (const [k, v] of Object.entries(c)) inc[k] = increase(prev.c[k] ?? 0, v);
      out[name] = inc;
    }
    for (const name of [...this.last.keys()]) if (!seen.has(name)) this.last.delete(name);
    return out;
  }
}

/**
 * The sum of the increases whose key starts with prefix.
 * @param {Record<string, number>} inc
 * @param {string} prefix
 */
export const sumOf = (inc, prefix) => Object.entries(inc).reduce((s, [k, v]) => (k.startsWith(prefix) ? s + v : s), 0);
