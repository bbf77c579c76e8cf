// @ts-check
// The operator console: sign-in, live tabs and turns (Server-Sent Events), conversations
// (search, transcript, export, delete) and health charts drawn as inline SVG from the
// counters of /metrics. Text is always set with textContent.

import { coalesce } from './refresh.js';
import { ClusterCounters, sumOf } from './rates.js';

const API = '/console/api';
const HEADERS = { 'X-Byomcp-Console': '1' };

/** @param {string} sel */
const $ = (sel) => /** @type {HTMLElement} */ (document.querySelector(sel));

/**
 * Creates an element with a class and text.
 * @param {string} tag
 * @param {string} [cls]
 * @param {string} [text]
 */
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** @param {string} path @param {RequestInit} [init] */
async function api(path, init = {}) {
  return (await apiWithHeaders(path, init)).body;
}

/** @param {string} path @param {RequestInit} [init] @returns {Promise<{body: any, headers: Headers}>} */
async function apiWithHeaders(path, init = {}) {
  const res = await fetch(API + path, { ...init, headers: { ...HEADERS, ...(init.headers ?? {}) }, credentials: 'same-origin' });
  if (res.status === 401 && path !== '/signin') {
    showSignIn();
    throw new Error('signed out');
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
  return { body, headers: res.headers };
}

/** @param {string|number|Date} t */
const when = (t) => {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) || d.getFullYear() < 2000 ? '' : d.toLocaleString();
};

/**
 * The line a call gets when the visitor was asked to confirm it: who answered what, and when.
 * @param {{answer: string, changed?: boolean, reason?: string, at?: number}|undefined} c
 */
function confirmationLine(c) {
  if (!c) return null;
  const at = c.at ? ` · ${when(c.at)}` : '';
  const text =
    c.answer === 'confirmed'
      ? `the visitor confirmed${c.changed ? ', with arguments they changed' : ''}${at}`
      : c.answer === 'declined'
        ? `the visitor declined${at}${c.reason ? ` · “${c.reason}”` : ''}`
        : `the visitor did not answer (the page went away, or the time ran out)${at}`;
  const line = el('div', `confirmation ${c.answer}`, text);
  line.dataset.answer = c.answer;
  return line;
}

/**
 * The lines a call gets for its server's questions to the visitor (agent/elicit): who asked
 * what, how it ended, and when. The visitor's answers are not recorded.
 * @param {Array<{server: string, message: string, mode: string, action: string, missed?: string, at?: number}>|undefined} asked
 */
function askedLines(asked) {
  if (!Array.isArray(asked)) return [];
  const missed = {
    timeout: 'the visitor did not answer in time',
    page_gone: 'the page went away before an answer',
    unable: 'the page could not ask',
    bad_answer: "the page's answer was not valid",
  };
  const did = { accept: 'the visitor answered', decline: 'the visitor declined', cancel: 'the visitor cancelled' };
  return asked.map((q) => {
    const how = (q.missed && missed[q.missed]) || did[q.action] || q.action;
    const at = q.at ? ` · ${when(q.at)}` : '';
    const line = el('div', `asked ${q.action}`, `${q.server} asked “${q.message}” (${q.mode === 'url' ? 'a link' : 'a form'}): ${how}; the server was told ${q.action}${at}`);
    line.dataset.action = q.action;
    return line;
  });
}

/** @param {unknown} v */
const pretty = (v) => {
  try {
    return JSON.stringify(typeof v === 'string' ? JSON.parse(v) : v, null, 2);
  } catch {
    return String(v);
  }
};

// ---- sign-in and navigation

let live = /** @type {EventSource|null} */ (null);
let healthTimer = 0;
let tabsTimer = 0;

function showSignIn() {
  live?.close();
  live = null;
  clearInterval(healthTimer);
  $('#nav').hidden = true;
  $('#signout').hidden = true;
  for (const p of document.querySelectorAll('[data-view-panel]')) /** @type {HTMLElement} */ (p).hidden = true;
  $('#signin').hidden = false;
  $('#token').focus();
}

function showApp() {
  $('#signin').hidden = true;
  $('#nav').hidden = false;
  $('#signout').hidden = false;
  startLive();
  startHealth();
  show(location.hash.slice(1) || 'live');
}

/** @param {string} view */
function show(view) {
  if (!['live', 'conversations', 'health'].includes(view)) view = 'live';
  for (const b of document.querySelectorAll('#nav button')) {
    if (/** @type {HTMLElement} */ (b).dataset.view === view) b.setAttribute('aria-current', 'page');
    else b.removeAttribute('aria-current');
  }
  for (const p of document.querySelectorAll('[data-view-panel]')) {
    /** @type {HTMLElement} */ (p).hidden = /** @type {HTMLElement} */ (p).dataset.viewPanel !== view;
  }
  if (location.hash !== '#' + view) history.replaceState(null, '', '#' + view);
  if (view === 'conversations') void search();
  if (view === 'live') refreshTabs();
}

$('#signin-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const err = $('#signin-error');
  err.textContent = '';
  try {
    await api('/signin', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: /** @type {HTMLInputElement} */ ($('#token')).value }) });
    /** @type {HTMLInputElement} */ ($('#token')).value = '';
    showApp();
  } catch (x) {
    err.textContent = x instanceof Error ? x.message : String(x);
  }
});

$('#signout').addEventListener('click', async () => {
  await api('/signout', { method: 'POST' }).catch(() => {});
  showSignIn();
});

for (const b of document.querySelectorAll('#nav button')) {
  b.addEventListener('click', () => show(/** @type {HTMLElement} */ (b).dataset.view ?? 'live'));
}

// ---- live: tabs and turns

const TABS_PAGE = 100;
/** The cursor the shown page of tabs starts after ('' for the first), and the ones before it. */
let tabsAfter = '';
/** @type {string[]} */
const tabsBefore = [];
let tabsNext = '';

/**
 * Tool definitions by reference (a hash of the content: a definition never changes), fetched
 * once, when the operator opens a tool.
 * @type {Map<string, Promise<any>>}
 */
const toolDefs = new Map();

/** @param {string} ref */
function toolDef(ref) {
  let p = toolDefs.get(ref);
  if (!p) {
    p = api('/tools/' + encodeURIComponent(ref));
    p.catch(() => toolDefs.delete(ref)); // asked again when opened again
    toolDefs.set(ref, p);
  }
  return p;
}

/**
 * Fills an opened tool's details with its description and schema, once.
 * @param {HTMLDetailsElement} d
 * @param {string} ref
 */
async function showToolDef(d, ref) {
  if (d.dataset.loaded) return;
  d.dataset.loaded = '1';
  const box = el('div', 'tool-def muted', 'Loading…');
  d.append(box);
  try {
    const def = await toolDef(ref);
    box.className = 'tool-def';
    box.replaceChildren();
    if (def.description) box.append(el('div', 'muted', def.description));
    box.append(el('pre', '', pretty(def.inputSchema ?? {})));
  } catch (x) {
    box.textContent = `The definition could not be read: ${x instanceof Error ? x.message : String(x)}`;
    delete d.dataset.loaded;
    d.addEventListener('toggle', () => { if (d.open) { box.remove(); void showToolDef(d, ref); } }, { once: true });
  }
}

async function loadTabs() {
  /** @type {any[]} */
  let tabs;
  /** @type {Headers} */
  let headers;
  const params = new URLSearchParams({ limit: String(TABS_PAGE) });
  if (tabsAfter) params.set('after', tabsAfter);
  try {
    ({ body: tabs, headers } = await apiWithHeaders('/tabs?' + params));
  } catch {
    return;
  }
  const hidden = Number(headers.get('X-Byomcp-Tabs-Hidden') ?? 0);
  const total = Number(headers.get('X-Byomcp-Tabs-Total') ?? tabs.length);
  tabsNext = headers.get('X-Byomcp-Next') ?? '';
  $('#tabs-note').textContent = [
    headers.get('X-Byomcp-Cluster') === 'unavailable' ? 'The other replicas could not be read: only this one is shown.' : '',
    hidden > 0 ? `${hidden} more tabs on other replicas are not listed.` : '',
  ].join(' ').trim();
  $('#tab-count').textContent = `(${total})`;
  $('#tabs-pager').hidden = !tabsNext && tabsBefore.length === 0;
  /** @type {HTMLButtonElement} */ ($('#tabs-next')).disabled = !tabsNext;
  /** @type {HTMLButtonElement} */ ($('#tabs-first')).disabled = tabsBefore.length === 0;
  const replicas = new Set(tabs.map((t) => t.replica ?? ''));
  const cluster = replicas.size > 1 || (replicas.size === 1 && !replicas.has(''));
  const box = $('#tabs');
  // The list is rebuilt every few seconds and after turns start and end: the tool lists
  // the operator opened stay open (keyed by the tab's connection and the tool's name).
  const opened = new Set();
  for (const d of box.querySelectorAll('tr.tab details[open]')) {
    const tr = /** @type {HTMLElement | null} */ (d.closest('tr.tab'));
    opened.add(`${tr?.dataset.key ?? ''}\u0000${/** @type {HTMLElement} */ (d).dataset.tool ?? ''}`);
  }
  box.replaceChildren();
  if (tabs.length === 0) {
    box.append(el('p', 'muted', tabsAfter ? 'No more tabs.' : 'No page is connected.'));
    return;
  }
  const table = el('table', 'tabs');
  const head = el('tr');
  for (const h of [...(cluster ? ['Replica'] : []), 'Site', 'Page', 'Session', 'Connected since', 'Tools']) head.append(el('th', '', h));
  table.append(el('thead'), el('tbody'));
  table.querySelector('thead')?.append(head);
  for (const t of tabs) {
    const tr = el('tr', 'tab');
    tr.dataset.session = t.sessionId ?? '';
    // The connection, not its session or page: those are filled in when the tab opens its
    // conversation (and a replica's presence may be read before that).
    const key = [t.replica ?? '', t.connId ?? ''].join('\u0000');
    tr.dataset.key = key;
    if (cluster) {
      tr.dataset.replica = t.replica ?? '';
      const cell = el('td', 'replica', t.replica || '—');
      // Its replica has not renewed its presence in time (killed, stopped or cut off): the
      // tab may be gone; it leaves the list when that presence expires.
      if (t.replicaLate) {
        tr.classList.add('late');
        cell.append(' ', el('span', 'pill late', 'replica not answering'));
      }
      tr.append(cell);
    }
    tr.append(el('td', '', t.site || t.origin));
    const page = el('td');
    page.append(el('div', '', t.title || '(no title)'), el('div', 'muted', t.url || t.origin));
    tr.append(page, el('td', 'muted', t.sessionId ? t.sessionId.slice(0, 8) + '…' : '—'), el('td', '', when(t.since)));
    const tools = el('td');
    const d = /** @type {HTMLDetailsElement} */ (el('details'));
    d.open = opened.has(`${key}\u0000`);
    const listed = t.tools ?? [];
    const count = t.toolCount ?? listed.length;
    d.append(el('summary', '', `${count} tools`));
    const ul = el('ul', 'tools-list');
    // Names only: a tool's description and schema are read when it is opened.
    for (const tool of listed) {
      const li = el('li');
      const inner = /** @type {HTMLDetailsElement} */ (el('details'));
      inner.dataset.tool = tool.name;
      inner.append(el('summary', 'tool-name', tool.name));
      inner.addEventListener('toggle', () => { if (inner.open) void showToolDef(inner, tool.ref); });
      inner.open = opened.has(`${key}\u0000${tool.name}`);
      if (inner.open) void showToolDef(inner, tool.ref);
      li.append(inner);
      ul.append(li);
    }
    if (count > listed.length) ul.append(el('li', 'muted', `${count - listed.length} more not listed`));
    d.append(ul);
    tools.append(d);
    tr.append(tools);
    table.querySelector('tbody')?.append(tr);
  }
  box.append(table);
}

// Every turn's start and end asks for the list again: one request at a time, at most one a
// second, whatever the visitors do.
const refreshTabs = coalesce(loadTabs, { minGap: 1000 });

$('#tabs-next').addEventListener('click', () => {
  if (!tabsNext) return;
  tabsBefore.push(tabsAfter);
  tabsAfter = tabsNext;
  refreshTabs();
});

$('#tabs-first').addEventListener('click', () => {
  tabsBefore.length = 0;
  tabsAfter = '';
  refreshTabs();
});

/** @type {Map<string, {root: HTMLElement, answer: HTMLElement, calls: Map<string, {box: HTMLElement, at: number}>}>} */
const turns = new Map();

/** @param {{origin: string, site: string, sessionId: string, event: any}} a */
function onActivity(a) {
  const ev = a.event;
  if (!ev || !ev.turnId) return;
  let t = turns.get(ev.turnId);
  if (!t) {
    const root = el('div', 'turn running');
    root.dataset.turn = ev.turnId;
    const who = el('div', 'who', `${a.replica ? `replica ${a.replica} · ` : ''}${a.site || a.origin} · session ${a.sessionId.slice(0, 8)}… · turn ${ev.turnId}`);
    if (a.replica) root.dataset.replica = a.replica;
    const state = el('span', 'pill running', 'running');
    who.append(' ', state);
    const answer = el('div', 'answer');
    root.append(who, answer);
    $('#turns').prepend(root);
    t = { root, answer, calls: new Map() };
    turns.set(ev.turnId, t);
    while (turns.size > 50) {
      const [first] = turns.keys();
      turns.get(first)?.root.remove();
      turns.delete(first);
    }
  }
  switch (ev.type) {
    case 'turn_start':
      t.root.insertBefore(el('div', 'user', ev.text), t.answer);
      break;
    case 'text_delta':
      t.answer.textContent += ev.delta;
      break;
    case 'tool_call': {
      const box = el('div', 'call');
      box.dataset.call = ev.callId;
      box.append(el('span', 'name', ev.name), ' ', el('span', 'pill running', 'running'), el('pre', 'args', pretty(ev.arguments)));
      t.root.insertBefore(box, t.answer);
      t.calls.set(ev.callId, { box, at: ev.time || Date.now() });
      break;
    }
    case 'tool_result': {
      const c = t.calls.get(ev.callId);
      if (!c) break;
      const pill = c.box.querySelector('.pill');
      if (pill) {
        pill.className = `pill ${ev.isError ? 'error' : 'ok'}`;
        pill.textContent = `${ev.isError ? 'error' : 'ok'} · ${Math.max(0, (ev.time || Date.now()) - c.at)} ms`;
      }
      const answer = confirmationLine(ev.confirmation);
      if (answer) c.box.append(answer);
      c.box.append(...askedLines(ev.asked));
      c.box.append(el('pre', 'result', ev.text));
      break;
    }
    case 'error':
      t.root.append(el('div', 'error', ev.message));
      break;
    case 'turn_end': {
      t.root.classList.remove('running');
      const pill = t.root.querySelector('.who .pill');
      if (pill) {
        pill.className = `pill ${ev.stopReason}`;
        pill.textContent = ev.stopReason + (ev.usage ? ` · ${ev.usage.totalTokens} tokens` : '');
      }
      if (!t.answer.textContent) t.answer.textContent = ev.text;
      break;
    }
  }
}

function startLive() {
  live?.close();
  live = new EventSource(API + '/live');
  live.addEventListener('open', () => {
    $('#live-state').textContent = 'Live: turns appear here as they run.';
  });
  live.addEventListener('error', () => {
    $('#live-state').textContent = 'Reconnecting…';
  });
  live.addEventListener('activity', (e) => {
    const a = JSON.parse(/** @type {MessageEvent} */ (e).data);
    onActivity(a);
    if (a.event?.type === 'turn_start' || a.event?.type === 'turn_end') refreshTabs();
  });
  if (!tabsTimer) {
    tabsTimer = window.setInterval(() => {
      if (!$('#view-live').hidden && live) refreshTabs();
    }, 5000);
  }
}

// ---- conversations

const sites = new Set();

let nextPage = '';
let searching = 0;

/** Lists the conversations of the search form; more=true appends the next page. */
async function search(more = false) {
  const q = /** @type {HTMLInputElement} */ ($('#q')).value;
  const site = /** @type {HTMLSelectElement} */ ($('#site')).value;
  const outcome = /** @type {HTMLSelectElement} */ ($('#outcome')).value;
  const params = new URLSearchParams({ q, site, outcome });
  if (more) params.set('after', nextPage);
  const mine = ++searching;
  /** @type {any[]} */
  let list;
  /** @type {Headers} */
  let headers;
  try {
    ({ body: list, headers } = await apiWithHeaders('/conversations?' + params));
  } catch {
    return;
  }
  if (mine !== searching) return; // a newer search is on its way
  nextPage = headers.get('X-Byomcp-Next') ?? '';
  $('#more').hidden = !nextPage;
  const body = $('#conversations');
  if (!more) body.replaceChildren();
  $('#conversations-empty').hidden = list.length > 0 || body.childElementCount > 0 || !!nextPage;
  for (const c of list) {
    if (c.site && !sites.has(c.site)) {
      sites.add(c.site);
      const o = el('option', '', c.site);
      /** @type {HTMLOptionElement} */ (o).value = c.site;
      $('#site').append(o);
    }
    const tr = el('tr', 'clickable conversation');
    tr.dataset.id = c.id;
    tr.tabIndex = 0;
    const outcomes = el('td');
    for (const o of c.outcomes) outcomes.append(el('span', `pill ${o}`, o));
    if (c.active) outcomes.append(el('span', 'pill running', 'running'));
    tr.append(el('td', '', when(c.updatedAt)), el('td', '', c.site || c.origin), el('td', 'first', c.first || '(no message)'), el('td', '', String(c.turns)), outcomes, el('td', '', String(c.tokens)));
    const open = () => void openTranscript(c.id);
    tr.addEventListener('click', open);
    tr.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') open();
    });
    body.append(tr);
  }
}

$('#more').addEventListener('click', () => void search(true));

$('#search').addEventListener('submit', (e) => {
  e.preventDefault();
  void search();
});

/** @param {string} id */
async function openTranscript(id) {
  /** @type {any} */
  let t;
  try {
    t = await api('/conversations/' + encodeURIComponent(id));
  } catch (x) {
    alert(x instanceof Error ? x.message : String(x));
    return;
  }
  for (const r of document.querySelectorAll('#conversations tr')) r.classList.toggle('selected', /** @type {HTMLElement} */ (r).dataset.id === id);
  $('#transcript-card').hidden = false;
  $('#transcript-card').dataset.id = id;
  $('#transcript-id').textContent = id;
  /** @type {HTMLAnchorElement} */ ($('#export')).href = `${API}/conversations/${encodeURIComponent(id)}/export`;
  $('#transcript-meta').textContent = `${t.site || t.origin} · ${t.page?.title || ''} ${t.page?.url || ''} · started ${when(t.createdAt)} · ${t.tokens} tokens`;
  const box = $('#transcript');
  box.replaceChildren();
  for (const turn of t.turnList) {
    const root = el('div', turn.interrupted ? 'turn interrupted' : 'turn');
    root.dataset.turn = turn.id;
    const who = el('div', 'who', `turn ${turn.id} · ${when(turn.start)}`);
    who.append(' ', el('span', `pill ${turn.stopReason || 'running'}`, turn.stopReason || 'no end'));
    if (turn.interrupted) who.append(' ', el('span', 'pill interrupted', 'interrupted'));
    if (turn.usage) who.append(' ', el('span', 'pill tokens', `${turn.usage.promptTokens} + ${turn.usage.completionTokens} tokens`));
    root.append(who, el('div', 'user', turn.text));
    for (const c of turn.calls) {
      const call = el('div', 'call');
      call.append(el('span', 'name', c.name), ' ', el('span', `pill ${c.outcome === 'ok' ? 'ok' : 'error'}`, c.outcome + (c.durationMs !== undefined ? ` · ${c.durationMs} ms` : '')));
      // A call of a turn cut short ran (or was sent) before the cut: said on the call itself.
      if (turn.interrupted) call.append(' ', el('span', 'pill interrupted', 'of an interrupted turn'));
      call.append(el('div', 'muted', 'arguments'), el('pre', 'args', pretty(c.arguments)));
      const answer = confirmationLine(c.confirmation);
      if (answer) call.append(answer);
      call.append(...askedLines(c.asked));
      call.append(el('div', 'muted', 'result'), el('pre', 'result', c.result));
      if (c.app) call.append(appView(id, c));
      root.append(call);
    }
    for (const e of turn.errors) root.append(el('div', 'error', e));
    root.append(el('div', 'answer', turn.answer));
    box.append(root);
  }
}

/**
 * A call's MCP App, read-only: its document (served sandboxed by the agent) in an iframe that
 * gets the call's input and result, and whose tool calls, messages and links are refused.
 * @param {string} id the conversation
 * @param {any} c the call
 */
function appView(id, c) {
  const box = el('div', 'app');
  box.append(el('div', 'muted', `app ${c.app.uri} of ${c.app.server} (read-only)`));
  const frame = /** @type {HTMLIFrameElement} */ (el('iframe', 'app-frame'));
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('referrerpolicy', 'no-referrer');
  frame.title = `${c.app.tool} (an app of ${c.app.server}), read-only`;
  frame.src = `${API}/conversations/${encodeURIComponent(id)}/apps/${encodeURIComponent(c.id)}`;
  box.append(frame);
  appFrames.set(frame, { app: c.app, left: 500 });
  return box;
}

/** @type {Map<HTMLIFrameElement, {app: any, left: number}>} the apps shown, with the messages each may still send */
const appFrames = new Map();

window.addEventListener('message', (ev) => {
  const entry = [...appFrames].find(([f]) => f.isConnected && f.contentWindow === ev.source);
  if (!entry) return;
  const [frame, st] = entry;
  if (--st.left < 0) {
    frame.remove();
    appFrames.delete(frame);
    return;
  }
  const m = ev.data;
  if (!m || m.jsonrpc !== '2.0' || typeof m.method !== 'string') return;
  const post = (/** @type {any} */ msg) => frame.contentWindow?.postMessage({ jsonrpc: '2.0', ...msg }, '*');
  if (m.method === 'ui/notifications/initialized') {
    post({ method: 'ui/notifications/tool-input', params: { arguments: st.app.input ?? {} } });
    if (st.app.result) post({ method: 'ui/notifications/tool-result', params: st.app.result });
  } else if (m.method === 'ui/notifications/size-changed') {
    const h = Number(m.params?.height);
    if (Number.isFinite(h)) frame.style.height = `${Math.min(640, Math.max(48, Math.round(h)))}px`;
  } else if (m.id === undefined) {
    // other notifications: nothing to do
  } else if (m.method === 'ui/initialize') {
    post({ id: m.id, result: { protocolVersion: '2026-01-26', hostInfo: { name: 'byomcp console', version: '1' }, hostCapabilities: {},
      hostContext: { toolInfo: { tool: { name: st.app.tool, inputSchema: { type: 'object' } } }, theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'web' } } });
  } else {
    post({ id: m.id, error: { code: -32601, message: 'the console shows apps read-only' } });
  }
});

$('#delete').addEventListener('click', async () => {
  const id = $('#transcript-card').dataset.id;
  if (!id || !confirm('Delete this conversation from the store? This cannot be undone.')) return;
  try {
    await api('/conversations/' + encodeURIComponent(id), { method: 'DELETE' });
  } catch (x) {
    alert(x instanceof Error ? x.message : String(x));
    return;
  }
  $('#transcript-card').hidden = true;
  void search();
});

// ---- health charts

/** @type {any[]} */
const samples = [];
const SVG = 'http://www.w3.org/2000/svg';

/**
 * @param {string} tag
 * @param {Record<string, string|number>} attrs
 * @param {string} [text]
 */
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * A line chart of several series, with a legend: one path.line.sN per series.
 * @param {string} id
 * @param {{label: string, points: [number, number][]}[]} series
 * @param {string} unit
 */
function multiLineChart(id, series, unit) {
  const W = 380, H = 160, L = 40, B = 20;
  const box = $(id);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': series.map((s) => s.label).join(', ') });
  root.append(svg('line', { class: 'axis', x1: L, y1: H - B, x2: W, y2: H - B }), svg('line', { class: 'axis', x1: L, y1: 0, x2: L, y2: H - B }));
  const legend = el('ul', 'legend');
  box.replaceChildren(root, legend);
  box.dataset.values = JSON.stringify(Object.fromEntries(series.map((s) => [s.label, s.points.map((p) => p[1])])));
  const all = series.flatMap((s) => s.points);
  if (series.every((s) => s.points.length < 2)) {
    root.append(svg('text', { x: L + 8, y: 40 }, 'Collecting samples…'));
    return;
  }
  const x0 = Math.min(...all.map((p) => p[0])), x1 = Math.max(...all.map((p) => p[0]));
  const ymax = Math.max(1e-9, ...all.map((p) => p[1]));
  const px = (/** @type {number} */ x) => L + ((x - x0) / Math.max(1, x1 - x0)) * (W - L - 4);
  const py = (/** @type {number} */ y) => H - B - (y / ymax) * (H - B - 12);
  series.forEach((s, i) => {
    if (s.points.length < 2) return;
    const path = svg('path', { class: `line s${i % 6}`, d: s.points.map((p, j) => `${j ? 'L' : 'M'}${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' ') });
    path.append(svg('title', {}, s.label));
    root.append(path);
    const li = el('li', `s${i % 6}`, `${s.label}: ${fmt(s.points[s.points.length - 1][1])}${unit}`);
    legend.append(li);
  });
  root.append(svg('text', { x: 2, y: 12 }, fmt(ymax) + unit), svg('text', { x: 2, y: H - B }, '0'));
  root.append(svg('text', { x: L, y: H - 4 }, new Date(x0).toLocaleTimeString()), svg('text', { x: W - 2, y: H - 4, 'text-anchor': 'end' }, new Date(x1).toLocaleTimeString()));
}

/** @param {number} n */
const fmt = (n) => (Number.isInteger(n) ? String(n) : n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(1) : n.toFixed(3));

/**
 * A horizontal bar chart.
 * @param {string} id
 * @param {{label: string, value: number, err?: number, note?: string}[]} bars
 */
function barChart(id, bars) {
  const W = 380, row = 24, L = 120, room = W - L - 150;
  const H = Math.max(1, bars.length) * row + 8;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${bars.length} bars` });
  const box = $(id);
  box.replaceChildren(root);
  if (bars.length === 0) {
    root.append(svg('text', { x: 4, y: 16 }, 'Nothing yet.'));
    return;
  }
  const max = Math.max(1e-9, ...bars.map((b) => b.value));
  bars.forEach((b, i) => {
    const y = 4 + i * row;
    const w = (b.value / max) * room;
    root.append(svg('text', { x: 2, y: y + 15 }, b.label.length > 19 ? b.label.slice(0, 18) + '…' : b.label));
    const bar = svg('rect', { class: 'bar', x: L, y: y + 3, width: Math.max(1, w).toFixed(1), height: row - 8 });
    bar.append(svg('title', {}, `${b.label}: ${b.value}`));
    root.append(bar);
    if (b.err) root.append(svg('rect', { class: 'bar err', x: L, y: y + 3, width: Math.max(1, (b.err / max) * room).toFixed(1), height: row - 8 }));
    root.append(svg('text', { x: L + w + 6, y: y + 15 }, `${fmt(b.value)}${b.note ? ' · ' + b.note : ''}`));
  });
}

/** @param {Record<string, number>} m */
const sum = (m) => Object.values(m ?? {}).reduce((a, b) => a + b, 0);

function draw() {
  const last = samples[samples.length - 1]?.x;
  if (!last) return;
  // Turns per minute of all replicas, and of each one when there are several.
  const replicaNames = [...new Set(samples.flatMap((s) => Object.keys(s.each)))].sort();
  /** @type {Map<string, [number, number][]>} */
  const turnsPerMin = new Map([['all replicas', []], ...(replicaNames.length > 1 ? replicaNames.map((n) => /** @type {[string, [number, number][]]} */ ([n, []])) : [])]);
  // Per site (sites.json), and "all sites" from the server-wide counters; every rate is the
  // sum of the replicas' increases (rates.js), so never below zero.
  const siteNames = [...new Set(samples.flatMap((s) => [...Object.keys(s.x.modelBySite ?? {}), ...Object.keys(s.x.tokensBySite ?? {})]))].sort();
  /** @type {Map<string, [number, number][]>} */
  const latency = new Map([['all sites', []], ...siteNames.map((n) => /** @type {[string, [number, number][]]} */ ([n, []]))]);
  /** @type {Map<string, [number, number][]>} */
  const perHour = new Map([['all sites', []], ...siteNames.map((n) => /** @type {[string, [number, number][]]} */ ([n, []]))]);
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1], b = samples[i], inc = b.inc;
    const minutes = Math.max(1e-6, (b.at - a.at) / 60000);
    turnsPerMin.get('all replicas')?.push([b.at, sumOf(inc, 'turns\u0000') / minutes]);
    if (replicaNames.length > 1) for (const n of replicaNames) turnsPerMin.get(n)?.push([b.at, sumOf(b.each[n] ?? {}, 'turns\u0000') / minutes]);
    const calls = inc.modelCalls ?? 0;
    latency.get('all sites')?.push([b.at, calls > 0 ? (inc.modelSeconds ?? 0) / calls : 0]);
    perHour.get('all sites')?.push([b.at, (sumOf(inc, 'tokens\u0000') * 60) / minutes]);
    for (const n of siteNames) {
      const c = inc[`site\u0000${n}\u0000calls`] ?? 0;
      latency.get(n)?.push([b.at, c > 0 ? (inc[`site\u0000${n}\u0000seconds`] ?? 0) / c : 0]);
      perHour.get(n)?.push([b.at, ((inc[`tokensBySite\u0000${n}`] ?? 0) * 60) / minutes]);
    }
  }
  multiLineChart('#chart-turns', [...turnsPerMin].map(([label, points]) => ({ label, points })), '/min');
  multiLineChart('#chart-model', [...latency].map(([label, points]) => ({ label, points })), ' s');
  multiLineChart('#chart-tokens-hour', [...perHour].map(([label, points]) => ({ label, points })), '/h');
  barChart('#chart-tools', last.tools.map((/** @type {any} */ t) => {
    const calls = t.ok + t.errors;
    const rate = calls ? (100 * t.errors) / calls : 0;
    const mean = t.timed ? (1000 * t.seconds) / t.timed : 0;
    return { label: (t.site ? t.site + ' · ' : '') + t.tool, value: calls, err: t.errors, note: `${rate.toFixed(0)}% errors, ${mean.toFixed(0)} ms` };
  }));
  const bySite = Object.entries(last.tokensBySite);
  barChart('#chart-tokens', bySite.length ? bySite.map(([k, v]) => ({ label: k, value: v })) : Object.entries(last.tokens).map(([k, v]) => ({ label: `all sites · ${k}`, value: v })));
  barChart('#chart-refused', Object.entries(last.refused).map(([k, v]) => ({ label: k, value: v })));
  const now = $('#now');
  now.replaceChildren();
  /** @param {any} h */
  const figures = (h) => [['open sockets', h.sockets], ['live sessions', h.sessions], ['turns ended', sum(h.turns)], ['model calls', h.modelCalls], ['tokens', sum(h.tokens)]];
  for (const [k, v] of figures(last)) {
    const dd = el('dd', '', String(v));
    dd.dataset.figure = String(k);
    now.append(el('dt', '', String(k)), dd);
  }
  // Each replica's own figures, when there are several (or one of a cluster).
  const box = $('#now-replicas');
  box.replaceChildren();
  const replicas = last.replicas ?? [];
  if (replicas.length > 1 || replicas.some((/** @type {any} */ r) => r.replica)) {
    for (const r of replicas) {
      const li = el('li', r.late ? 'late' : '', `${r.replica}: ${figures(r).map(([k, v]) => `${v} ${k}`).join(', ')}`);
      li.dataset.replica = r.replica;
      for (const [k, v] of figures(r)) li.dataset[String(k).replace(/ (\w)/g, (_, c) => c.toUpperCase())] = String(v);
      if (r.late) li.append(' ', el('span', 'pill late', 'replica not answering'));
      box.append(li);
    }
  }
  $('#health-note').textContent = clusterNote;
}

const counts = new ClusterCounters();
let clusterNote = '';

async function sample() {
  /** @type {any} */
  let x;
  /** @type {Headers} */
  let headers;
  try {
    ({ body: x, headers } = await apiWithHeaders('/metrics'));
  } catch {
    return;
  }
  clusterNote = headers.get('X-Byomcp-Cluster') === 'unavailable' ? 'The other replicas could not be read: only this one is counted in this sample.' : '';
  const each = counts.addEach(x);
  /** @type {Record<string, number>} */
  const inc = {};
  for (const e of Object.values(each)) for (const [k, v] of Object.entries(e)) inc[k] = (inc[k] ?? 0) + v;
  samples.push({ at: Date.now(), x, inc, each });
  while (samples.length > 120) samples.shift();
  draw();
}

function startHealth() {
  clearInterval(healthTimer);
  void sample();
  healthTimer = window.setInterval(sample, 5000);
}

// ---- start

window.addEventListener('hashchange', () => show(location.hash.slice(1)));
fetch(API + '/me', { credentials: 'same-origin' }).then((r) => (r.ok ? showApp() : showSignIn()), showSignIn);
