// The one inline script of `spine serve`'s session pages (allowed by its CSP hash): it appends
// the HTML fragments the server renders for new events, as server-sent events arrive, then the
// end of the follow: `end` (the session closed) or `failed` (the log could not be read on, with
// the reason). Rendering stays on the server; the fragments are escaped there like every other
// page.

/** The script source (kept short and dependency-free; its hash goes into the page's CSP). */
export const LIVE_SCRIPT = `(() => {
  const live = document.getElementById('live');
  if (!live || !live.dataset.follow) return;
  const source = new EventSource(live.dataset.follow);
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    live.insertAdjacentHTML('beforeend', event.html);
    live.dataset.last = String(event.seq);
  };
  source.addEventListener('end', () => {
    source.close();
    live.dataset.ended = 'true';
    live.insertAdjacentHTML('beforeend', '<p class="mute" id="live-end">The session is closed.</p>');
  });
  source.addEventListener('failed', (message) => {
    source.close();
    live.dataset.ended = 'failed';
    live.insertAdjacentHTML('beforeend', JSON.parse(message.data).html);
  });
})();`;
