/**
 * The inbox's only script, served as is (no build step). Without it every page still works; with
 * it, pages follow the account's activity: on each server-sent `activity` event the page fetches
 * itself and swaps in its live parts (elements with `data-live` and an id), keeping which
 * histories are open and keeping a thread scrolled to its newest message.
 */
export const CLIENT_SCRIPT = `'use strict';
(() => {
  const liveParts = () => document.querySelectorAll('[data-live][id]');
  if (liveParts().length === 0 || !('EventSource' in window)) return;
  const atBottom = () => window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
  if (document.getElementById('messages')) window.scrollTo(0, document.body.scrollHeight);

  let running = false;
  let again = false;
  async function refresh() {
    if (running) { again = true; return; }
    running = true;
    try {
      const response = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' });
      // Signed out meanwhile (expired, logged out elsewhere): show the login page.
      if (response.redirected || !response.ok) { location.reload(); return; }
      const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
      const stick = document.getElementById('messages') !== null && atBottom();
      for (const part of liveParts()) {
        const replacement = fresh.getElementById(part.id);
        if (!replacement) continue;
        for (const details of part.querySelectorAll('details[open][id]')) {
          const twin = replacement.querySelector('#' + CSS.escape(details.id));
          if (twin) twin.open = true;
        }
        part.replaceWith(document.importNode(replacement, true));
      }
      if (stick) window.scrollTo(0, document.body.scrollHeight);
      document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
    } catch {
      // A failed fetch (server restarting) is retried on the next activity or reconnect.
    } finally {
      running = false;
      if (again) { again = false; void refresh(); }
    }
  }

  const events = new EventSource('/inbox/events');
  events.addEventListener('ready', () => {
    // Activity between this page's rendering and the stream's start (or during a reconnect) was missed: catch up.
    void refresh();
    document.body.dataset.live = 'on';
  });
  events.addEventListener('activity', () => void refresh());
  events.addEventListener('error', () => { document.body.dataset.live = 'off'; });
})();
`;
