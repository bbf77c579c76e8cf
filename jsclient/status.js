// @ts-check
/**
 * @file How `<byomcp-chat>` shows its connection: the header's status line, the banner (offline,
 * reconnecting, or an origin the agent refuses), and the running turn's typing dots or
 * "waiting for the connection" note.
 */

/**
 * @param {{el: Record<string, HTMLElement>, strings: Record<string, string>, state: string, refused: string|null,
 *   active: import('./turn-view.js').TurnView|null, confirming: boolean}} options
 *   refused: the message for a refused origin, or null; confirming: a confirmation card waits
 */
export function showConnection({ el, strings: s, state, refused, active: a, confirming }) {
  const text = { idle: s.disconnected, connecting: s.connecting, open: s.subtitle || s.connected, reconnecting: s.reconnecting, closed: s.disconnected }[state] ?? state;
  const open = state === 'open';
  el.status.dataset.state = state;
  el.statusText.textContent = text;
  const banner = el.banner;
  banner.hidden = state !== 'reconnecting' && !refused;
  if (refused) {
    banner.dataset.kind = 'refused';
    el.bannerText.textContent = refused;
  } else {
    banner.dataset.kind = 'offline';
    const busy = a && !a.done;
    const offline = globalThis.navigator?.onLine === false;
    // "You are offline" only when the browser says so; a message waiting while the browser
    // is online waits for the agent, which the visitor cannot fix.
    el.bannerText.textContent = busy && !a?.queued ? `${s.reconnecting} ${s.errorConnection}` : offline ? s.offline : a?.queued ? s.unreachable : s.reconnecting;
  }
  // A turn waiting for the connection shows that, not typing dots.
  if (a && !a.done) {
    if (!open && a.thinking) a.setThinking(false);
    else if (open && !a.thinking && !a.stream && !confirming) a.setThinking(true);
    a.el.querySelector('.queued')?.toggleAttribute('hidden', open);
  }
}
