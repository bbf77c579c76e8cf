// @ts-check
/**
 * @file How `<byomcp-chat>`'s transcript scrolls: it sticks to the end while the answer
 * streams, unless the reader scrolled up (then a "new messages" button says there is more);
 * a card that needs the visitor is scrolled fully into view.
 */

/** Within this many pixels of the end, the reader is "at the end". */
const END_SLACK_PX = 24;

const raf = (/** @type {() => void} */ f) => (globalThis.requestAnimationFrame ?? ((/** @type {() => void} */ g) => setTimeout(g, 16)))(f);

/** Keeps a transcript pinned to its end while the reader wants it there. */
export class Scroller {
  #t;
  #button;
  #pinned = true;
  #queued = false;
  /** the transcript's scrollTop after the last scroll event, to tell the reader scrolling up */
  #lastTop = 0;

  /**
   * @param {HTMLElement} transcript the scrolling box
   * @param {HTMLElement} content what grows inside it
   * @param {HTMLElement} button the "new messages" button (hidden while pinned)
   */
  constructor(transcript, content, button) {
    this.#t = transcript;
    this.#button = button;
    // Content growing never unpins, only the reader moving up does; reaching the end pins.
    transcript.addEventListener('scroll', () => {
      const t = this.#t;
      if (t.scrollHeight - t.scrollTop - t.clientHeight < END_SLACK_PX) this.#pinned = true;
      else if (t.scrollTop < this.#lastTop - 2) this.#pinned = false;
      this.#lastTop = t.scrollTop;
      if (this.#pinned) button.hidden = true;
    });
    // Whatever changes the height (streamed text, Markdown settling, a card, the panel
    // resizing) keeps a pinned reader at the end.
    if (typeof ResizeObserver === 'function') {
      const ro = new ResizeObserver(() => this.follow());
      ro.observe(content);
      ro.observe(transcript);
    }
  }

  /** Keeps a pinned reader at the end; tells an unpinned one that there is more below. */
  follow() {
    const t = this.#t;
    if (this.#pinned) {
      t.scrollTop = t.scrollHeight;
      this.#lastTop = t.scrollTop;
      return;
    }
    if (t.scrollHeight - t.scrollTop - t.clientHeight > END_SLACK_PX) this.#button.hidden = false;
  }

  /**
   * Scrolls to the end on the next frame, if the reader was at the end (or force: pin there).
   * @param {boolean} [force]
   */
  toEnd(force = false) {
    if (force) this.#pinned = true;
    if (this.#queued) return;
    this.#queued = true;
    raf(() => {
      this.#queued = false;
      if (!this.#pinned) {
        this.follow();
        return;
      }
      const t = this.#t;
      t.scrollTop = t.scrollHeight;
      this.#lastTop = t.scrollTop;
      this.#button.hidden = true;
    });
  }

  /**
   * Scrolls el fully into view (its bottom edge first, then its top if it is taller than the
   * view), now and once more after layout has settled.
   * @param {HTMLElement} el
   */
  reveal(el) {
    const place = () => {
      if (!el.isConnected) return;
      const t = this.#t;
      const tr = t.getBoundingClientRect();
      const r = el.getBoundingClientRect();
      let delta = 0;
      if (r.bottom > tr.bottom) delta = r.bottom - tr.bottom + 8;
      if (r.top - delta < tr.top) delta = r.top - tr.top - 8;
      t.scrollTop += delta;
      this.#lastTop = t.scrollTop;
      this.#pinned = t.scrollHeight - t.scrollTop - t.clientHeight < END_SLACK_PX;
    };
    place();
    raf(() => raf(place));
  }
}
