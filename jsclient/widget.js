// @ts-check
/**
 * @file The one script a site embeds to give the byomcp agent its page's tools and a chat panel:
 * it creates the ToolHost, document.modelContext, the AgentClient and the `<byomcp-chat>` element.
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

function boot() {
  const win = /** @type {any} */ (globalThis);
  if (win.byomcp) {
    console.warn('byomcp: the widget is already loaded on this page');
    return;
  }
  const config = win.byomcpConfig && typeof win.byomcpConfig === 'object' ? win.byomcpConfig : {};
  const script = findScript(document, import.meta.url);
  const data = script?.dataset ?? {};

  const host = new ToolHost();
  const modelContext = installModelContext(host);
  const socketURL = agentURL(import.meta.url, data.agent ?? config.agent);
  const client = new AgentClient({ url: socketURL, host });

  defineChatElement();
  const element = /** @type {import('./chat-element.js').ChatElement} */ (document.createElement('byomcp-chat'));
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
  host.setConfirmHandler((request) => element.confirm({ ...request, tool: toolInfo(request.name) ?? undefined }));
  win.byomcp = { client, host, element, modelContext };

  const mount = () => {
    document.body.append(element);
    client.start();
    // On the page's Performance timeline: when the launcher is on screen (tests measure it).
    requestAnimationFrame(() => performance.mark?.('byomcp:launcher'));
  };
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount, { once: true });
}

if (typeof document !== 'undefined') boot();
