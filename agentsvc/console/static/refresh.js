// @ts-check
// Coalescing of the console's refreshes: the tab list is asked for at every turn's start and
// end of every visitor, which can be hundreds a second; the server must see at most one
// request in flight and at most one a second, and the last state must still be shown.

/**
 * Returns a function that asks for a run of `run`. Runs never overlap and start at least
 * `minGap` ms apart; asks that come while one runs or waits are merged into one more run
 * after it (so the last ask is always followed by a run that starts after it).
 * @param {() => Promise<unknown>} run
 * @param {{minGap?: number, now?: () => number, later?: (fn: () => void, ms: number) => unknown}} [opts]
 * @returns {() => void}
 */
export function coalesce(run, opts = {}) {
  const minGap = opts.minGap ?? 1000;
  const now = opts.now ?? (() => Date.now());
  const later = opts.later ?? ((fn, ms) => setTimeout(fn, ms));
  let running = false;
  let waiting = false; // a timer will start the next run
  let due = false; // an ask came that no started run has answered yet
  let last = -Infinity; // when the last run started

  const start = () => {
    waiting = false;
    due = false;
    running = true;
    last = now();
    Promise.resolve()
      .then(run)
      .catch(() => {})
      .finally(() => {
        running = false;
        if (due) ask();
      });
  };

  const ask = () => {
    due = true;
    if (running || waiting) return;
    const wait = last + minGap - now();
    if (wait > 0) {
      waiting = true;
      later(start, wait);
      return;
    }
    start();
  };
  return ask;
}
