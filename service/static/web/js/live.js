// Live updates: the seat's event stream over Server-Sent Events, opened with a short-lived stream
// ticket (EventSource cannot send an Authorization header, and a token must never sit in a URL).
// Where the browser has SharedWorker, every table of the browser shares one stream (./follow-worker.js): a
// browser opens at most six connections to an origin, and a stream per table would leave a seventh tab none.

import { post, Problem } from "./api.js";

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
export function follow(options) {
  return typeof SharedWorker === "undefined" ? followAlone(options) : followShared(options);
}

let worker = null;
const listeners = new Map(); // follow id -> its handler of the worker's messages

function shared() {
  if (!worker) {
    worker = new SharedWorker("/static/web/js/follow-worker.js", { name: "referee-follow" });
    worker.port.onmessage = (message) => {
      if (message.data.op === "state") stateWaiters.splice(0).forEach((resolve) => resolve(message.data));
      else listeners.get(message.data.id)?.(message.data);
    };
    worker.port.start();
    addEventListener("pagehide", () => worker.port.postMessage({ op: "bye" }));
  }
  return worker;
}

const stateWaiters = [];

/** What the shared stream follows now (for people curious about it, and the tests): {follows, matches, url}. */
export function followState() {
  return new Promise((resolve) => {
    stateWaiters.push(resolve);
    shared().port.postMessage({ op: "state" });
  });
}

function followShared({ matchId, token, types, onEvent, onStatus }) {
  const port = shared().port;
  const id = `${matchId}.${Math.random().toString(36).slice(2)}`;
  let lastSeq = 0;

  async function ticket() {
    if (!token) return null;
    for (;;) {
      try {
        return (await post(`/matches/${matchId}/stream-ticket`, {}, token)).ticket;
      } catch (problem) {
        onStatus("unreachable", problem.text);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        if (!listeners.has(id)) return null;
      }
    }
  }

  listeners.set(id, async (msg) => {
    if (msg.op === "event") {
      if (msg.event.seq <= lastSeq) return;
      lastSeq = msg.event.seq;
      onEvent(msg.event);
      if (FINAL.has(msg.event.type)) over();
    } else if (msg.op === "end") {
      over();
    } else if (msg.op === "status") {
      onStatus(msg.state, msg.problem ? new Problem(msg.problem.status, msg.problem).text : undefined);
    } else if (msg.op === "need-ticket") {
      const fresh = await ticket();
      if (listeners.has(id)) port.postMessage({ op: "ticket", id, ticket: fresh });
    }
  });
  ticket().then((first) => {
    if (listeners.has(id)) port.postMessage({ op: "follow", id, matchId, ticket: first, types });
  });

  function over() {
    stop();
    onStatus("over");
  }

  function stop() {
    if (listeners.delete(id)) port.postMessage({ op: "unfollow", id });
  }

  return { stop };
}

/** The stream of this table alone (a browser without SharedWorker). */
function followAlone({ matchId, token, types, onEvent, onStatus }) {
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
