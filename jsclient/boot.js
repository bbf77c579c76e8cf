// @ts-check
/**
 * @file The widget's second half, imported by widget.js once the launcher is on screen: it
 * creates the ToolHost, document.modelContext, the AgentClient and the `<byomcp-chat>` panel,
 * which takes over the launcher widget.js showed (the same element, upgraded in place).
 */

import { ToolHost } from './tools.js';
import { installModelContext } from './modelcontext.js';
import { AgentClient } from './agent.js';
import { defineChatElement } from './chat-element.js';
import { parseStringsAttribute } from './strings.js';
import { parseLayout } from './layout.js';

/**
 * The agent's WebSocket URL: data-agent when given (relative URLs resolve against the script),
 * else /v1/ws on the script's host, with ws: or wss: following the script's scheme.
 * @param {string} scriptURL
 * @param {string|null|undefined} [agent]
 * @returns {string}
 */
export function agentURL(scriptURL, agent) {
  const u = new URL(agent || '/v1/ws', scriptURL);
  if (u.protocol === 'http:') u.protocol = 'ws:';
  else if (u.protocol === 'https:') u.protocol = 'wss:';
  return u.href;
}

/**
 * The agent's GET /v1/site URL (the site settings of the calling page's origin), from its
 * socket URL.
 * @param {string} socketURL
 * @returns {string}
 */
export function siteURL(socketURL) {
  const u = new URL('/v1/site', socketURL);
  u.protocol = u.protocol === 'wss:' ? 'https:' : 'http:';
  return u.href;
}

/**
 * Reads the site settings the agent keeps for this page's origin (sites.json): UI strings
 * (greeting included) and suggestions. Anything unusable is left out; a failure gives {}.
 * @param {string} url
 * @param {typeof fetch} [fetchFn]
 * @returns {Promise<{strings?: Record<string, string>, suggestions?: string[]}>}
 */
export async function loadSite(url, fetchFn = globalThis.fetch) {
  try {
    const res = await fetchFn(url, { credentials: 'omit', cache: 'no-cache' });
    if (!res.ok) return {};
    const v = await res.json();
    /** @type {{strings?: Record<string, string>, suggestions?: string[]}} */
    const out = {};
    if (v && typeof v.strings === 'object' && v.strings && !Array.isArray(v.strings)) {
      out.strings = Object.fromEntries(Object.entries(v.strings).filter(([, x]) => typeof x === 'string'));
    }
    if (Array.isArray(v?.suggestions)) out.suggestions = v.suggestions.filter((/** @type {unknown} */ x) => typeof x === 'string');
    return out;
  } catch {
    return {};
  }
}

/**
 * Parses a JSON array-of-strings attribute; anything else is ignored with a warning.
 * @param {string|null|undefined} attr
 * @returns {string[]|undefined}
 */
function parseList(attr) {
  if (!attr) return undefined;
  try {
    const v = JSON.parse(attr);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  } catch {
    // reported below
  }
  console.warn('byomcp: data-suggestions must be a JSON array of strings; ignored');
  return undefined;
}

/**
 * Brings the widget to life on element (the `<byomcp-chat>` widget.js put on the page, with its
 * launcher).
 * @param {object} options
 * @param {HTMLElement} options.element
 * @param {string} options.scriptURL widget.js's URL (the agent's host by default)
 * @param {HTMLScriptElement|null} options.script its tag (data-* settings)
 * @param {{wantOpen: boolean, focused: boolean}} options.launcher what the visitor did with the
 *   launcher before this ran: clicked it open (an odd number of clicks), has it focused
 * @param {(html: string) => any} [options.html] widget.js's Trusted Types policy, kept from the page
 * @returns {{client: AgentClient, host: ToolHost, element: import('./chat-element.js').ChatElement, modelContext: unknown}}
 */
export function boot({ element: el, scriptURL, script, launcher, html }) {
  const win = /** @type {any} */ (globalThis);
  const config = win.byomcpConfig && typeof win.byomcpConfig === 'object' ? win.byomcpConfig : {};
  const data = script?.dataset ?? {};

  const host = new ToolHost();
  const modelContext = installModelContext(host);
  const socketURL = agentURL(scriptURL, data.agent ?? config.agent);
  const client = new AgentClient({ url: socketURL, host });

  // Read before the upgrade, which replaces the launcher (and so takes its focus away).
  const { wantOpen, focused } = launcher;
  defineChatElement(undefined, html);
  customElements.upgrade(el); // in case it is not in the document (define upgrades those that are)
  const element = /** @type {import('./chat-element.js').ChatElement} */ (el);
  const toolInfo = (/** @type {string} */ name) => host.listTools().find((t) => t.name === name) ?? null;
  const pageStrings = { ...(config.strings ?? {}), ...(parseStringsAttribute(data.strings) ?? {}) };
  const pageSuggestions = parseList(data.suggestions) ?? (Array.isArray(config.suggestions) ? config.suggestions : undefined);
  element.attach({
    client,
    strings: pageStrings,
    suggestions: pageSuggestions ?? [],
    toolInfo,
    layout: parseLayout(data.layout ?? config.layout),
  });
  // The site's strings, greeting and suggestions kept by the agent (sites.json); the page's own win.
  void loadSite(siteURL(socketURL)).then((site) => {
    element.configure({
      strings: site.strings ? { ...site.strings, ...pageStrings } : undefined,
      suggestions: pageSuggestions ? undefined : site.suggestions,
    });
  });
  host.setConfirmHandler((request) => element.confirm({ ...request, tool: request.tool ?? toolInfo(request.name) ?? undefined }));
  host.setInputHandler((request) => element.askInput(request));

  const start = () => {
    if (!element.isConnected) document.documentElement.append(element); // see widget.js's mount
    client.start();
    // A single-page app's navigation changes the URL (and often the title) without a page
    // load: the agent is told, at once where the browser says so, else within a second (and
    // of a new title alone before the visitor's next message: AgentClient.chat).
    const notePage = () => void client.notePage({ urlOnly: true });
    win.addEventListener('popstate', notePage);
    win.addEventListener('hashchange', notePage);
    win.navigation?.addEventListener?.('navigatesuccess', notePage);
    setInterval(notePage, 1000);
    performance.mark?.('byomcp:panel'); // the panel works from here (tests report it)
    // What the visitor did with the launcher while this was loading.
    if (wantOpen) element.open();
    else if (focused) element.close({ focusLauncher: true });
  };
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start, { once: true });
  return { client, host, element, modelContext };
}
