// Live updates: the seat's event stream over Server-Sent Events, opened with a short-lived stream
// ticket (EventSource cannot send an Authorization header, and a token must never sit in a URL).

import { post } from "./api.js";

const RETRY_MS = 2000;
const FINAL = new Set(["match_finished", "match_aborted"]);

/**
 * Follow a match's events from the start.  ``types`` are the event names to listen for (SSE names
 * each event by its type); ``onEvent(event)`` gets each once, in order; ``onStatus(state, detail)``
 * hears about the connection: "live", "reconnecting" (the stream broke; the browser retries),
 * "unreachable" (no ticket could be had) or "over".  The browser's EventSource reconnects by itself
 * with Last-Event-ID; when the server closes for good (an expired ticket), a fresh ticket resumes
 * after the last event seen.
 */
export function follow({ matchId, token, types, onEvent, onStatus }) {
  let source = null;
  let lastSeq = 0;
  let stopped = false;

  async function open() {
    if (stopped) return;
    const query = new URLSearchParams({ after: String(lastSeq) });
    if (token) {
      try {
        const { ticket } = await post(`/matches/${matchId}/stream-ticket`, {}, token);
        query.set("ticket", ticket);
      } catch (problem) {
        onStatus("unreachable", problem.text);
        setTimeout(open, RETRY_MS);
        return;
      }
    }
    source = new EventSource(`/matches/${matchId}/events?${query}`);
    source.addEventListener("open", () => onStatus("live"));
    source.addEventListener("error", () => {
      onStatus("reconnecting");
      if (source.readyState === EventSource.CLOSED) setTimeout(open, RETRY_MS);
    });
    // the server's last word once the match is over: nothing more will come
    source.addEventListener("end", over);
    for (const type of types) {
      source.addEventListener(type, (message) => {
        const event = JSON.parse(message.data);
        if (event.seq <= lastSeq) return;
        lastSeq = event.seq;
        onEvent(event);
        if (FINAL.has(event.type)) over();
      });
    }
  }

  function over() {
    stop();
    onStatus("over");
  }

  function stop() {
    stopped = true;
    source?.close();
  }

  open();
  return { stop };
}
