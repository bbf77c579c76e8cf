// @ts-check
/**
 * @file Where `<byomcp-chat>` sits on the page. On wide screens (default: from 1024 px) the open
 * panel is docked: a full-height side panel, and the page is narrowed by its width instead of
 * being covered (the element gets layout="docked"; <html> gets the class byomcp-docked and the
 * CSS variable --byomcp-dock-inset, which a page's own fixed elements may use, e.g.
 * `right: var(--byomcp-dock-inset, 0px)`). Elsewhere it floats above the page.
 *
 * The choice comes from the script tag's data-layout: "auto" (the default), "docked" (docked
 * whenever the screen is at least 600 px wide) or "floating" (never docked).
 *
 * Also adoptStyle: how the widget's styles (and the docked page's rule) are applied.
 */

/** The media query of "auto". */
export const DOCK_QUERY = '(min-width: 1024px)';
/** The media query of "docked": anything but a phone. */
const DOCK_ALWAYS_QUERY = '(min-width: 601px)';
/** @type {WeakSet<Document>} the documents PAGE_STYLE was added to */
const styled = new WeakSet();

/** Rules added once to the page so that it makes room for the docked panel. */
const PAGE_STYLE = `html.byomcp-docked { margin-right: var(--byomcp-dock-inset, 0px) !important; }
@media (prefers-reduced-motion: no-preference) { html.byomcp-docked-anim { transition: margin-right .18s ease; } }`;

/**
 * @param {string|null|undefined} value the data-layout attribute
 * @returns {'auto'|'docked'|'floating'}
 */
export function parseLayout(value) {
  const v = String(value ?? '').trim().toLowerCase();
  if (v === 'docked' || v === 'floating') return v;
  if (v && v !== 'auto') console.warn(`byomcp: data-layout must be auto, docked or floating; got ${JSON.stringify(value)}`);
  return 'auto';
}

/**
 * Keeps the element's layout attribute and the page's room for it in step with the screen
 * width and whether the panel is open.
 */
export class Dock {
  #host;
  #mode;
  /** @type {MediaQueryList|null} */
  #mq = null;
  #open = false;

  /**
   * @param {HTMLElement} host the <byomcp-chat> element
   * @param {'auto'|'docked'|'floating'} mode
   */
  constructor(host, mode) {
    this.#host = host;
    this.#mode = mode;
    const win = /** @type {any} */ (globalThis);
    if (mode !== 'floating' && typeof win.matchMedia === 'function') {
      this.#mq = win.matchMedia(mode === 'docked' ? DOCK_ALWAYS_QUERY : DOCK_QUERY);
      this.#mq?.addEventListener?.('change', () => this.#apply());
    }
    this.#apply();
  }

  /** Whether the panel docks on this screen now. */
  get docked() {
    return !!this.#mq?.matches;
  }

  /** @param {boolean} open */
  setOpen(open) {
    this.#open = open;
    this.#apply();
  }

  #apply() {
    const docked = this.docked;
    if (docked) this.#host.setAttribute('layout', 'docked');
    else this.#host.setAttribute('layout', 'floating');
    const doc = this.#host.ownerDocument;
    const html = doc?.documentElement;
    if (!html) return;
    const inset = docked && this.#open;
    if (inset) {
      if (!styled.has(doc)) {
        styled.add(doc);
        adoptStyle(doc, PAGE_STYLE);
      }
      const width = getComputedStyle(this.#host).getPropertyValue('--byomcp-width').trim() || '400px';
      html.style.setProperty('--byomcp-dock-inset', width);
    } else {
      html.style.removeProperty('--byomcp-dock-inset');
    }
    html.classList.toggle('byomcp-docked', inset);
  }
}

// ---- applying styles

/**
 * Applies css to root as a constructed stylesheet (adoptedStyleSheets). A page whose
 * Content-Security-Policy allows no inline style (`style-src` without 'unsafe-inline', common
 * on shops) blocks `<style>` elements: the widget came out unstyled, its panel in the page's
 * flow. A constructed sheet is CSSOM, which `style-src` does not govern. Where that fails
 * (Safari before 16.4, a root of another document) a `<style>` element does it.
 * @param {ShadowRoot|Document} root a shadow root of the widget's (replace: css alone) or the
 *   page's document (its own sheets stay; css goes after them)
 * @param {string} css
 * @param {boolean} [replace]
 */
export function adoptStyle(root, css, replace = false) {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = replace ? [sheet] : [...root.adoptedStyleSheets, sheet];
  } catch {
    const style = document.createElement('style');
    style.textContent = css;
    if (replace || !('head' in root)) root.prepend(style);
    else (root.head ?? root.documentElement).append(style);
  }
}
