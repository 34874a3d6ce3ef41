// The web table: one seat's view drawn as a picture, its legal moves as controls, the event log,
// live updates and the end.  Each game's picture is its own module in ./games/.

import { get, post, Problem } from "./api.js";
import { fill, h, num, readable } from "./dom.js";
import { follow } from "./live.js";
import { COMMON, fallback } from "./log.js";
import { moveControl, moveKey } from "./moves.js";

const GAMES = ["super_blatt", "paparazzo", "big_shot", "dice_party", "picture_perfect"];
const $ = (id) => document.getElementById(id);

const matchId = decodeURIComponent(location.pathname.split("/")[2] || "");
const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get("token");

const page = { snap: null, moves: [], events: [], problem: null, game: null, title: "", refreshing: null, again: false };

/** Names for sentences and labels: "Ann (you)", "greedy bot". */
const talk = {
  name(seat) {
    const s = page.snap?.seats[seat];
    const name = s?.name || `Seat ${seat}`;
    return seat === page.snap?.seat ? `${name} (you)` : name;
  },
  names(seats) {
    const list = seats.map((s) => talk.name(s));
    return list.length < 2 ? list.join("") : `${list.slice(0, -1).join(", ")} and ${list.at(-1)}`;
  },
  winners(seats) {
    return seats?.length ? `${seats.length > 1 ? "Winners" : "Winner"}: ${talk.names(seats)}.` : "";
  },
};

function fail(message) {
  fill($("board"));
  fill($("actions"));
  fill($("notice"), h("div", { class: "problem big", role: "alert" }, h("p", {}, message),
    h("p", {}, h("a", { href: "/" }, "Back to the lobby"))));
}

// -- loading and refreshing ------------------------------------------------------------------------
async function load() {
  // one request: the view and this seat's legal moves of one version
  const snap = await get(`/matches/${encodeURIComponent(matchId)}?legal_moves=true`, token);
  page.snap = snap;
  page.moves = snap.legal_moves ?? [];
}

/**
 * Re-read the match (at most one read at a time; a change during a read triggers one more).  The
 * picture is drawn again only when the match moved on (or ``force``, after a move of this page):
 * redrawing an unchanged table would throw away a number the player is typing.
 */
function refresh(force = false) {
  page.force ||= force;
  if (page.refreshing) {
    page.again = true;
    return page.refreshing;
  }
  page.refreshing = (async () => {
    do {
      page.again = false;
      try {
        const shown = page.snap?.version;
        await load();
        if (page.force || page.snap.version !== shown) {
          page.force = false;
          render();
        } else {
          renderLog();
        }
      } catch (problem) {
        if (!(problem instanceof Problem)) throw problem;
        fill($("live"), `Could not refresh: ${problem.detail}`);
      }
    } while (page.again);
    page.refreshing = null;
  })();
  return page.refreshing;
}

async function play(move, element, template = move) {
  page.problem = null;
  document.querySelectorAll("#board .problem, #actions .problem").forEach((note) => note.remove()); // a new try: the old refusal goes
  document.body.classList.add("busy");
  try {
    await post(`/matches/${matchId}/moves`, { move, expected_version: page.snap.version }, token);
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    page.problem = { key: moveKey(template), detail: problem.detail, code: problem.code };
  } finally {
    document.body.classList.remove("busy");
  }
  await refresh(true);
  if (page.problem) document.querySelector(".problem[role=alert]")?.focus();
}

// -- drawing ---------------------------------------------------------------------------------------
function render() {
  const { snap } = page;
  document.title = `${page.title} · Referee`;
  fill($("title"), page.title);
  fill($("status"), statusLine(snap));
  fill($("seats"), snap.seats.map((s) => h("li", { class: snap.to_act.includes(s.seat) ? "to-act" : null },
    snap.to_act.includes(s.seat) ? h("span", { class: "marker" }, "▶ to act: ") : null,
    talk.name(s.seat), s.bot ? ` (${s.bot} bot)` : "", s.joined ? "" : " (open seat)")));

  const shown = new Set();
  let attached = false;
  const ctx = {
    snap, view: snap.view, seat: snap.seat, moves: page.moves, ...talk,
    /** The legal moves of one type (optionally filtered), for a renderer to place on its picture. */
    movesOf: (type, test = () => true) => page.moves.filter((m) => m.type === type && test(m)),
    /** Moves the renderer offers through a control of its own making (e.g. choose cards, then show). */
    claim: (moves) => moves.forEach((m) => shown.add(m)),
    /** A control for a legal move; the problem of its last refusal shows next to it. */
    control(move, label, attrs) {
      shown.add(move);
      const el = moveControl(move, label, play, attrs);
      if (page.problem?.key !== moveKey(move)) return el;
      attached = true;
      return h("span", { class: "with-problem" }, el, problemNote());
    },
  };
  fill($("board"), page.game.render(ctx));
  // for scripts and tests: what the page currently shows
  document.body.dataset.version = snap.version;
  document.body.dataset.status = snap.status;
  const rest = page.moves.filter((m) => !shown.has(m)).map((m) => ctx.control(m));
  const mine = snap.seat !== null && snap.to_act.includes(snap.seat);
  fill($("actions"),
    page.problem && !attached ? problemNote() : null,
    rest.length ? [h("h2", {}, "Your other moves"), h("div", { class: "controls" }, rest)] : null,
    mine && !page.moves.length ? h("p", {}, "Your decision is made; waiting for the others.") : null);
  renderLog();
  fill($("result"), snap.result ? renderResult(snap) : null);
}

function problemNote() {
  return h("p", { class: "problem", role: "alert", tabindex: "-1" }, `Refused: ${page.problem.detail}`);
}

function statusLine(snap) {
  if (snap.status === "waiting") {
    const open = snap.seats.filter((s) => !s.joined).length;
    return `Waiting for ${open} more ${open === 1 ? "player" : "players"} to join.`;
  }
  if (snap.status === "scoring") return "The game is over; the referee is counting.";
  if (snap.status === "finished") return `The match is over. ${talk.winners(snap.result?.winners)}`;
  if (snap.status === "aborted") return "The host aborted this match.";
  const me = snap.seat;
  const others = snap.to_act.filter((s) => s !== me);
  if (snap.to_act.length > 1) {
    // a simultaneous decision: who is still to decide, never what anyone chose
    const mine = snap.to_act.includes(me) ? "Your decision is needed. " : "";
    return `${mine}Still to decide: ${talk.names(snap.to_act)}. Choices stay secret until everyone has decided.`;
  }
  if (snap.to_act.includes(me)) return "Your turn.";
  return others.length ? `${talk.names(others)} to act.` : "";
}

function renderLog() {
  const list = page.events.slice(-300).reverse().map((e) => h("li", { "data-seq": e.seq }, sentence(e)));
  fill($("log"), list);
}

function sentence(event) {
  const say = page.game.SENTENCES[event.type] || COMMON[event.type];
  try {
    return (say && say(event.data, talk)) || fallback(event, talk);
  } catch (error) { // an event shaped unlike its sentence expects must not stop the table
    console.error(error);
    return fallback(event, talk);
  }
}

function renderResult(snap) {
  const { result } = snap;
  const explain = (seat) => (page.game.breakdown ? page.game.breakdown(result.breakdown[seat], talk)
    : readable(result.breakdown[seat]));
  const rows = result.ranking.flatMap((seats, place) => seats.map((seat) => h("tr", {},
    h("td", {}, `${place + 1}.`),
    h("th", { scope: "row" }, talk.name(seat), result.winners.includes(seat) ? " ★ winner" : ""),
    h("td", {}, num(result.scores[seat])),
    h("td", {}, explain(seat)))));
  return [
    h("h2", {}, "Final result"),
    h("table", { class: "result" }, h("thead", {}, h("tr", {}, h("th", {}, "Place"), h("th", {}, "Seat"),
      h("th", {}, "Score"), h("th", {}, "How it arose"))), h("tbody", {}, rows)),
    page.game.finale ? page.game.finale({ ...talk, snap, matchId }) : null,
  ];
}

// -- start ------------------------------------------------------------------------------------------
async function start() {
  if (fragment.has("token") && !token) return fail("This link has an empty seat token. Ask for a new link.");
  try {
    await load();
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    if (problem.code === "bad_token") {
      return fail("This link's seat token is not valid for this match (it may be mistyped or from another match).");
    }
    if (problem.code === "unknown_match") return fail("There is no such match: it may have ended and expired.");
    return fail(`The match cannot be shown: ${problem.detail}`);
  }
  const { snap } = page;
  if (!GAMES.includes(snap.game)) return fail(`This page cannot draw ${snap.game}.`);
  page.game = await import(`./games/${snap.game}.js`);
  page.title = (await get(`/games/${snap.game}`)).title;
  if (!token) {
    fill($("notice"), h("p", { class: "note" }, "You are watching: this link carries no seat token, so you see what a ",
      "spectator sees. ", h("a", { href: "/" }, "Back to the lobby")));
  } else if (snap.seat === null) {
    fill($("notice"), h("p", { class: "note" }, "This is the host's link: you see what a spectator sees."));
  }
  render();
  $("board").addEventListener("redraw", render); // a renderer's own choice (a card picked) changed the picture
  follow({
    matchId,
    token: snap.seat !== null ? token : null, // the host's token has no seat (and no ticket): it watches
    types: [...Object.keys(COMMON), ...Object.keys(page.game.SENTENCES)],
    onEvent(event) {
      page.events.push(event);
      refresh();
    },
    onStatus(text) {
      fill($("live"), text === "live" ? "● live" : text);
      if (text === "live") refresh();
    },
  });
}

start();
