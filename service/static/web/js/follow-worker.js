// One event stream for every table of this browser (a SharedWorker: one per origin, shared by all its tabs).
//
// A browser opens at most six HTTP/1.1 connections to an origin; with one EventSource per table, a seventh
// tab never loads.  Here the tabs send what they follow (a match, the seat's stream ticket, the event types they
// draw), and this worker holds one EventSource on GET /events that follows them all, each by its own ticket.
// Each frame's id is "INDEX:SEQ": INDEX says which follow it belongs to, so two seats of one match in two tabs
// (or a seat and a spectator) each get their own events only.  A follow resumes after the last seq it was given,
// so a reconnect or a new tab (the stream is opened again with every follow's position) loses and repeats nothing.
//
// Tabs -> worker: {op: "follow", id, matchId, ticket, types}, {op: "unfollow", id}, {op: "ticket", id, ticket},
// {op: "bye"} (the tab goes), {op: "state"}.  Worker -> tabs: {op: "event", id, event}, {op: "end", id},
// {op: "status", id, state, problem}, {op: "need-ticket", id}, {op: "state", follows, matches, url}.

const RETRY_MS = 2000;
const ALWAYS = ["end", "refused"];

const follows = new Map(); // id -> {port, matchId, ticket, after, types, waiting}
let source = null;
let order = []; // the follow ids of the open stream, by index
let opened = "";
let timer = null;

onconnect = (connected) => {
  const port = connected.ports[0];
  port.onmessage = (message) => handle(port, message.data);
  port.start();
};

function handle(port, msg) {
  const f = follows.get(msg.id);
  if (msg.op === "follow") {
    follows.set(msg.id, { port, matchId: msg.matchId, ticket: msg.ticket || null, after: 0, types: msg.types || [],
      waiting: false });
    schedule();
  } else if (msg.op === "unfollow") {
    if (follows.delete(msg.id)) schedule();
  } else if (msg.op === "bye") {
    for (const [id, other] of follows) if (other.port === port) follows.delete(id);
    schedule();
  } else if (msg.op === "ticket" && f) {
    f.ticket = msg.ticket;
    f.waiting = false;
    schedule();
  } else if (msg.op === "state") {
    port.postMessage({ op: "state", follows: follows.size, matches: [...follows.values()].map((f) => f.matchId),
      url: source ? opened : null });
  }
}

/** Open the stream again soon (several changes at once make one reconnect). */
function schedule() {
  clearTimeout(timer);
  timer = setTimeout(open, 20);
}

function open() {
  const ids = [...follows.keys()].filter((id) => !follows.get(id).waiting);
  const query = new URLSearchParams();
  for (const id of ids) {
    const f = follows.get(id);
    query.append("follow", [f.matchId, f.after, ...(f.ticket ? [f.ticket] : [])].join(","));
  }
  const url = `/events?${query}`;
  if (source && source.readyState !== EventSource.CLOSED && sameFollows(ids)) return;
  source?.close();
  source = null;
  order = ids;
  opened = url;
  if (!ids.length) return;
  const stream = new EventSource(url);
  source = stream;
  const types = new Set(ALWAYS);
  for (const id of ids) for (const type of follows.get(id).types) types.add(type);
  for (const type of types) stream.addEventListener(type, (message) => deliver(type, message));
  stream.addEventListener("open", () => tell(ids, "live"));
  stream.addEventListener("error", () => {
    if (stream !== source) return;
    tell(ids, "reconnecting");
    if (stream.readyState === EventSource.CLOSED) { // refused whole (or the server is gone): new tickets, again
      source = null;
      setTimeout(renew, RETRY_MS);
    }
  });
}

/** Whether the open stream follows exactly these (the positions in its URL may be older: seqs filter repeats). */
function sameFollows(ids) {
  return ids.length === order.length && ids.every((id, i) => id === order[i]);
}

function deliver(type, message) {
  const [tag] = message.lastEventId.split(":");
  const id = order[Number(tag)];
  const f = follows.get(id);
  if (!f) return; // it stopped following since
  if (type === "refused") {
    const problem = JSON.parse(message.data);
    if (problem.code === "bad_ticket" && f.ticket) { // expired: the tab gets a new one, then it joins again
      f.waiting = true;
      f.port.postMessage({ op: "need-ticket", id });
    } else {
      follows.delete(id);
      f.port.postMessage({ op: "status", id, state: "unreachable", problem }); // the tab words it in its language
    }
    return;
  }
  if (type === "end") {
    follows.delete(id); // a table whose match ended follows it no more
    f.port.postMessage({ op: "end", id });
    return;
  }
  const event = JSON.parse(message.data);
  if (event.seq <= f.after) return; // a reconnect resent it
  f.after = event.seq;
  f.port.postMessage({ op: "event", id, event });
}

function tell(ids, state) {
  for (const id of ids) follows.get(id)?.port.postMessage({ op: "status", id, state });
}

/** After the stream was refused or lost: every seat asks for a fresh ticket (one may have expired), then it opens. */
function renew() {
  for (const [id, f] of follows) {
    if (f.ticket) {
      f.waiting = true;
      f.port.postMessage({ op: "need-ticket", id });
    }
  }
  schedule();
}
