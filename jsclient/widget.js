// @ts-check
/**
 * @file The one script a site embeds to give the byomcp agent its page's tools and a chat panel.
 *
 *   <script type="module" src="https://HOST/byomcp/widget.js"
 *           data-agent="wss://HOST/v1/ws"
 *           data-strings='{"title":"Shopping assistant"}'
 *           data-suggestions='["Show me SUVs under $40,000"]'></script>
 *
 * Without data-agent the socket is /v1/ws on the script's own host (wss: for an https: script).
 * data-layout="auto|docked|floating" says where the open panel sits (see layout.js; auto docks
 * it beside the page from 1024 px). window.byomcpConfig = {agent, strings, suggestions, layout},
 * set before the script runs, does the same; the script tag's attributes win. Scripts that run
 * before this one may register tools once /byomcp/preload.js (a classic script) has run: their
 * registrations are queued and registered here. For debugging and tests the pieces are exposed
 * as window.byomcp = {client, host, element, modelContext}.
 *
 * This file imports nothing, so that it runs as soon as it has arrived: it puts the launcher on
 * the page at once (a `<byomcp-chat>` whose shadow root holds only the launcher) and imports the
 * rest (boot.js and what it needs; the server starts all of those imports together), which
 * upgrades the same element into the panel. A click on the launcher before then opens the panel
 * as soon as it is there.
 */

/** The launcher's style: the same text as the start of chat-style.js's STYLE (a unit test checks it). */
export const LAUNCHER_STYLE = `
:host {
  all: initial;
  --_accent: var(--byomcp-accent, #2563eb);
  --_accent-fg: var(--byomcp-accent-fg, #ffffff);
  --_bg: var(--byomcp-bg, #ffffff);
  --_fg: var(--byomcp-fg, #111827);
  --_muted: var(--byomcp-muted, #6b7280);
  --_border: var(--byomcp-border, #e5e7eb);
  --_surface: var(--byomcp-surface, #f3f4f6);
  --_font: var(--byomcp-font, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif);
  --_radius: var(--byomcp-radius, 16px);
  --_width: var(--byomcp-width, 400px);
  --_height: var(--byomcp-height, 640px);
  --_offset: var(--byomcp-offset, 20px);
  --_z: var(--byomcp-z-index, 2147483000);
  --_label: var(--byomcp-label, #4b5563);
  --_danger: #b91c1c;
  --_ok: #15803d;
  font-family: var(--_font);
  font-size: 15px;
  line-height: 1.5;
  color: var(--_fg);
}
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
button { font: inherit; color: inherit; cursor: pointer; }
button:disabled { cursor: default; opacity: .55; }
:focus-visible { outline: 3px solid var(--_accent); outline-offset: 2px; }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }

.launcher {
  position: fixed; z-index: var(--_z);
  right: calc(var(--_offset) + env(safe-area-inset-right, 0px));
  bottom: calc(var(--_offset) + env(safe-area-inset-bottom, 0px));
  width: 60px; height: 60px; border-radius: 50%; border: 0;
  display: grid; place-items: center;
  background: var(--_accent); color: var(--_accent-fg);
  box-shadow: 0 10px 25px -5px rgb(0 0 0 / .3), 0 4px 8px -4px rgb(0 0 0 / .2);
  transition: transform .15s ease, box-shadow .15s ease;
}
.launcher:hover { transform: translateY(-2px) scale(1.03); }
.launcher:focus-visible { outline-offset: 4px; }
`;

/** The launcher's icon: chat-style.js's ICON_CHAT (a unit test checks it). */
export const LAUNCHER_ICON =
  '<svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 3C6.9 3 3 6.6 3 11c0 2.1.9 4 2.4 5.4-.2 1.5-.8 2.9-1.8 4 2.1-.1 4-.8 5.5-1.9 1 .3 1.9.5 2.9.5 5.1 0 9-3.6 9-8s-3.9-8-9-8Zm-4 9.3a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Zm4 0a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Zm4 0a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Z"/></svg>';

/** The launcher's label: strings.js's launcherOpen (a unit test checks it). */
export const LAUNCHER_LABEL = 'Open the assistant';

/** Set on the window once a copy of this script has started (window.byomcp comes later). */
const LOADING = Symbol.for('byomcp.widget');

/**
 * Finds the script tag that loaded url (module scripts have no document.currentScript).
 * @param {Document} doc
 * @param {string} url
 * @returns {HTMLScriptElement|null}
 */
export function findScript(doc, url) {
  for (const s of doc.querySelectorAll('script[src]')) {
    const el = /** @type {HTMLScriptElement} */ (s);
    if (el.src === url) return el;
  }
  return null;
}

/**
 * The launcher's label: data-strings' (or byomcpConfig.strings') launcherOpen when set.
 * @param {HTMLScriptElement|null} script
 * @param {any} config
 */
function launcherLabel(script, config) {
  let strings = config?.strings;
  try {
    if (script?.dataset.strings) strings = { ...strings, ...JSON.parse(script.dataset.strings) };
  } catch {
    // boot.js reports a bad data-strings
  }
  return typeof strings?.launcherOpen === 'string' && strings.launcherOpen ? strings.launcherOpen : LAUNCHER_LABEL;
}

function start() {
  const win = /** @type {any} */ (globalThis);
  if (win.byomcp || win[LOADING]) {
    console.warn('byomcp: the widget is already loaded on this page');
    return;
  }
  win[LOADING] = true;
  // A page that enforces Trusted Types takes markup only from a policy: "byomcp" passes this
  // widget's static markup (the launcher, then the panel's), and only boot.js gets it.
  /** @type {any} */
  let policy;
  try {
    policy = win.trustedTypes?.createPolicy('byomcp', { createHTML: (/** @type {string} */ s) => s });
  } catch (err) {
    console.warn("byomcp: Trusted Types policy 'byomcp' refused (CSP trusted-types)", err);
  }
  const html = (/** @type {string} */ s) => policy?.createHTML(s) ?? s;
  // Tools registered by scripts that run before the rest is here are queued (as preload.js does).
  const doc = /** @type {any} */ (document);
  if (!doc.modelContext) {
    doc.modelContext = {
      __byomcpQueue: [],
      registerTool(/** @type {unknown} */ tool, /** @type {unknown} */ options) {
        this.__byomcpQueue.push([tool, options]);
        return Promise.resolve();
      },
    };
  }
  const config = win.byomcpConfig && typeof win.byomcpConfig === 'object' ? win.byomcpConfig : {};
  const script = findScript(document, import.meta.url);
  const element = document.createElement('byomcp-chat');
  const launcher = { wantOpen: false, focused: false };
  if (!customElements.get('byomcp-chat')) {
    const root = element.attachShadow({ mode: 'open' });
    try {
      root.innerHTML = html(`<button class="launcher" part="launcher" type="button" aria-expanded="false">${LAUNCHER_ICON}</button>`);
    } catch {
      return; // Trusted Types enforced and our policy refused (said above): no launcher, no panel
    }
    // Adopted, not a <style> element, which a page's CSP without 'unsafe-inline' styles blocks
    // (layout.js's adoptStyle does this for the rest; this file imports nothing).
    const css = `${LAUNCHER_STYLE}.launcher[aria-busy="true"] { cursor: progress; }`;
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      root.adoptedStyleSheets = [sheet];
    } catch {
      root.prepend(Object.assign(document.createElement('style'), { textContent: css }));
    }
    const button = /** @type {HTMLButtonElement} */ (root.querySelector('.launcher'));
    button.setAttribute('aria-label', launcherLabel(script, config));
    button.addEventListener('click', () => {
      launcher.wantOpen = !launcher.wantOpen;
      button.setAttribute('aria-busy', String(launcher.wantOpen));
    });
    button.addEventListener('focus', () => (launcher.focused = true));
    button.addEventListener('blur', () => (launcher.focused = false));
  }
  // After the <body>, as the last child of <html>: a page that replaces its <body> (Turbo,
  // htmx's boosted links, Barba) keeps the widget and its conversation, and a page whose
  // <body> is transformed (a transform, a filter) does not carry the fixed launcher along.
  const mount = () => {
    if (!element.isConnected) document.documentElement.append(element);
    // On the page's Performance timeline: when the launcher is on screen (tests measure it).
    requestAnimationFrame(() => performance.mark?.('byomcp:launcher'));
  };
  if (document.body) {
    mount();
  } else {
    // An async script in the <head> may run before the <body> is there: mount once the parser
    // has it (not at DOMContentLoaded, which waits for the page's deferred scripts).
    const whenBody = () => {
      if (!document.body) return;
      document.removeEventListener('readystatechange', whenBody);
      mount();
    };
    document.addEventListener('readystatechange', whenBody);
  }

  import('./boot.js')
    .then((m) => {
      win.byomcp = m.boot({ element, scriptURL: import.meta.url, script, launcher, html });
    })
    .catch((err) => console.error('byomcp: the assistant could not be loaded:', err));
}

if (typeof document !== 'undefined') start();
