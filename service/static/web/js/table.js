// The web table: one seat's view drawn as a picture, its legal moves as controls, the event log,
// live updates and the end.  Each game's picture is its own module in its package (table.js, served at
// /games/{game}/table.js); every word comes from the language's catalogue (./i18n.js).

import { get, post, Problem } from "./api.js";
import { fill, h, languageSwitch, num, readable } from "./dom.js";
import { botName, capital, has, loadGameWords, loadLanguage, seatName, speak, t } from "./i18n.js";
import { follow } from "./live.js";
import { COMMON, fallback } from "./log.js";
import { moveControl, moveKey } from "./moves.js";

const $ = (id) => document.getElementById(id);
// the server's words for a move of this seat: the game's own event says it better ("took … from column 2")
const NOT_LOGGED = new Set(["moved"]);
const OFFLINE_AFTER_MS = 1500; // a stream that breaks and comes back at once (a new ticket) is no outage

const matchId = decodeURIComponent(location.pathname.split("/")[2] || "");
const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get("token");

const page = {
  snap: null, moves: [], events: [], problem: null, game: null, title: "", refreshing: null, again: false,
  offline: false, offlineTimer: null, texts: null, shownSeqs: null, wasMine: null, replay: null,
};

/** Names for sentences and labels: "Ann (you)"; two bots of one kind are "greedy bot 1" and "greedy bot 2". */
const talk = {
  t,
  num,
  name(seat) {
    const seats = page.snap?.seats || [];
    const base = seatName(seats[seat]) || t("seat.n", { n: seat + 1 });
    const same = seats.filter((s) => (seatName(s) || t("seat.n", { n: s.seat + 1 })) === base);
    const name = same.length > 1 ? `${base} ${same.findIndex((s) => s.seat === seat) + 1}` : base;
    return seat === page.snap?.seat ? t("seat.you", { name }) : name;
  },
  names(seats) {
    const list = seats.map((s) => talk.name(s));
    return list.length < 2 ? list.join("") : t("list.and", { first: list.slice(0, -1).join(", "), last: list.at(-1) });
  },
  winners(seats) {
    return seats?.length ? t("result.winners", { n: seats.length, names: talk.names(seats) }) : "";
  },
  /** A phase of this game in words ("offers" -> "Offers: each in turn raises or passes"). */
  phase(phase) {
    const key = `phase.${page.snap.game}.${phase}`;
    if (has(key)) return t(key);
    return has(`phase.${phase}`) ? t(`phase.${phase}`) : String(phase ?? "").replaceAll("_", " ");
  },
};

speak(talk);

function fail(message) {
  fill($("board"));
  fill($("actions"));
  fill($("notice"), h("div", { class: "problem big", role: "alert" }, h("p", {}, message),
    h("p", {}, h("a", { href: "/" }, t("table.backToLobby")))));
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
          const snap = shownSnap(); // the events that say nobody here moved came after the end was drawn
          if (snap.result && unmoved(snap) && !$("result").querySelector("[data-no-move]")) {
            fill($("result"), renderResult(snap));
          }
        }
      } catch (problem) {
        if (!(problem instanceof Problem)) throw problem;
        if (problem.code === "network") connection("unreachable");
        else fill($("live"), t("live.noRefresh", { detail: problem.text }));
      }
    } while (page.again);
    page.refreshing = null;
  })();
  return page.refreshing;
}

async function play(move, element, template = move) {
  if (page.offline) return;
  if (page.game.confirm) { // an irreversible move that gives points away asks first
    const question = page.game.confirm(move, ctxFor(page.snap));
    if (question && !window.confirm(question)) return;
  }
  page.problem = null;
  document.querySelectorAll("#board .problem, #actions .problem").forEach((note) => note.remove()); // a new try: the old refusal goes
  document.body.classList.add("busy");
  try {
    await post(`/matches/${matchId}/moves`, { move, expected_version: page.snap.version }, token);
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    page.problem = { key: moveKey(template), detail: problem.text, code: problem.code, move };
    if (problem.code === "network") connection("unreachable");
  } finally {
    document.body.classList.remove("busy");
  }
  await refresh(true);
  if (page.problem) document.querySelector(".problem[role=alert]")?.focus();
  else keepFocus(moveKey(template));
}

/** After a move, keyboard focus stays at the table (not on <body>): the same control if it is still offered,
 * else the first move control, else the status line. */
function keepFocus(key) {
  if (document.activeElement && document.activeElement !== document.body && document.activeElement.isConnected) return;
  const controls = [...document.querySelectorAll("#board [data-move], #actions [data-move]")];
  const target = controls.find((c) => c.dataset.move === key) || controls[0];
  // a stepper: its number (its button on a touch screen, where a focused number field opens the keyboard)
  const touch = window.matchMedia("(pointer: coarse)").matches;
  const el = !target ? $("status") : !target.matches("form") ? target
    : target.querySelector(touch ? "button[type=submit]" : "input");
  el?.focus({ preventScroll: true });
}

// -- the connection --------------------------------------------------------------------------------
/** What the stream and the requests say: the page shows an outage prominently and takes moves away. */
function connection(state) {
  if (state === "live") {
    clearTimeout(page.offlineTimer);
    page.offlineTimer = null;
    fill($("live"), t("live.live"));
    const was = page.offline;
    page.offline = false;
    if (page.problem?.code === "network") page.problem = null; // a stale "cannot be reached" goes
    if (was) showOutage(); // the banner goes and the moves come back (no redraw otherwise: a number being typed stays)
    refresh(was); // resync: whatever happened meanwhile comes with the stream and this read
    return;
  }
  if (state === "over") {
    clearTimeout(page.offlineTimer);
    fill($("live"), t("live.over"));
    if (page.offline) {
      page.offline = false;
      showOutage();
    }
    return;
  }
  fill($("live"), t("live.reconnecting"));
  if (page.offline || page.offlineTimer) return;
  page.offlineTimer = setTimeout(() => {
    page.offlineTimer = null;
    page.offline = true;
    showOutage();
    if (page.snap) render();
  }, state === "unreachable" ? 0 : OFFLINE_AFTER_MS);
}

function showOutage() {
  document.body.classList.toggle("offline", page.offline);
  const banner = $("outage");
  banner.hidden = !page.offline;
  fill(banner, page.offline ? [h("strong", {}, t("outage.title")), " ", t("outage.body")] : null);
  if (!page.offline && page.snap) render();
}

// -- noticing one's turn ---------------------------------------------------------------------------
const prefs = {
  get sound() { try { return localStorage.getItem("referee.sound") === "on"; } catch { return false; } },
  set sound(on) { try { localStorage.setItem("referee.sound", on ? "on" : "off"); } catch { /* not kept */ } },
};

function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.4);
  } catch { /* no sound here */ }
}

function noticeTurn(mine) {
  document.title = (mine ? `▶ ${t("table.titleTurn")} · ` : "") + `${page.title} · Referee`;
  if (mine && page.wasMine === false) {
    document.body.dataset.turnNoticed = String(Number(document.body.dataset.turnNoticed || 0) + 1);
    if (prefs.sound) beep();
    if (document.hidden && "Notification" in window && Notification.permission === "granted") {
      new Notification(t("table.titleTurn"), { body: `${page.title}: ${statusLine(page.snap)}`, tag: matchId });
    }
  }
  page.wasMine = mine;
}

function renderPrefs() {
  const sound = h("button", { type: "button", class: "pref", "aria-pressed": String(prefs.sound) },
    prefs.sound ? t("prefs.soundOn") : t("prefs.soundOff"));
  sound.addEventListener("click", () => {
    prefs.sound = !prefs.sound;
    if (prefs.sound) beep();
    renderPrefs();
  });
  let notify = null;
  const over = ["finished", "aborted"].includes(page.snap?.status); // nothing left to be told of
  if ("Notification" in window && Notification.permission === "default" && token && !over) {
    notify = h("button", { type: "button", class: "pref", title: t("prefs.notifyWhat") }, t("prefs.notify"));
    notify.addEventListener("click", async () => {
      await Notification.requestPermission();
      renderPrefs();
    });
  }
  fill($("prefs"), token ? sound : null, notify, languageSwitch());
}

// -- drawing ---------------------------------------------------------------------------------------
function ctxFor(snap) {
  const moves = page.replay ? [] : page.moves;
  return { snap, view: snap.view, seat: snap.seat, moves, ...talk,
    movesOf: (type, test = () => true) => moves.filter((m) => m.type === type && test(m)) };
}

/** What the page draws: the match now, or (replaying a finished match) the spectator's view at a step. */
function shownSnap() {
  const { snap, replay } = page;
  if (!replay) return snap;
  const end = replay.step === replay.steps;
  return { ...snap, seat: null, view: replay.view, to_act: replay.to_act, status: end ? snap.status : "active",
    result: end ? snap.result : null };
}

function render() {
  const snap = shownSnap();
  if (page.naming && ["finished", "aborted"].includes(page.snap.status)) page.naming.remove(); // names are final
  if (page.snap.status !== page.prefsFor) { // "Notify me" goes once the match is over
    page.prefsFor = page.snap.status;
    renderPrefs();
  }
  const mine = snap.seat !== null && snap.to_act.includes(snap.seat) && snap.status === "active";
  noticeTurn(mine);
  fill($("title"), page.title);
  fill($("status"), page.offline ? t("outage.status") : statusLine(snap));
  $("status").classList.toggle("mine", mine && !page.offline);
  fill($("seats"), snap.seats.map((s) => h("li", { class: snap.to_act.includes(s.seat) ? "to-act" : null },
    snap.to_act.includes(s.seat) ? h("span", { class: "marker" }, `▶ ${t("seat.toAct")} `) : null,
    // a bot seat named after its kind says it once ("greedy bot", not "greedy bot (greedy bot)")
    talk.name(s.seat), s.bot && !talk.name(s.seat).startsWith(botName(s.bot)) ? ` (${botName(s.bot)})` : "",
    s.joined ? "" : ` (${t("seat.open")})`)));

  const shown = new Set();
  let attached = false;
  const ctx = {
    ...ctxFor(snap),
    /** Moves the renderer offers through a control of its own making (e.g. choose cards, then show). */
    claim: (moves) => moves.forEach((m) => shown.add(m)),
    /** A control for a legal move; the problem of its last refusal shows next to it. */
    control(move, label, attrs) {
      shown.add(move);
      const el = moveControl(move, label, play, attrs);
      if (page.problem?.key !== moveKey(move)) return el;
      attached = true;
      // the refused number stays in its field, beside the refusal (a field reset to its lowest would
      // seem to be what was refused)
      for (const input of el.querySelectorAll?.("input[name]") || []) {
        if (page.problem.move[input.name] !== undefined) input.value = page.problem.move[input.name];
      }
      return h("span", { class: "with-problem" }, el, problemNote());
    },
  };
  fill($("board"), page.game.render(ctx));
  page.ctx = ctx;
  // for scripts and tests: what the page currently shows
  document.body.dataset.version = snap.version;
  document.body.dataset.status = snap.status;
  const rest = ctx.moves.filter((m) => !shown.has(m)).map((m) => ctx.control(m));
  fill($("actions"),
    page.problem && !attached ? problemNote() : null,
    rest.length ? [h("h2", {}, t("table.otherMoves")), h("div", { class: "controls" }, rest)] : null,
    mine && !page.moves.length ? h("p", {}, t("table.decided")) : null);
  if (page.offline) {
    for (const el of document.querySelectorAll("#board button, #board input, #actions button, #actions input")) {
      el.disabled = true;
    }
  }
  highlight();
  showPreview(null);
  renderHelp(snap);
  renderLog();
  fill($("result"), snap.result ? renderResult(snap) : null);
  renderReplay();
  renderAnalysis();
}

// -- what a move does, before it is chosen ----------------------------------------------------------
/**
 * The move a control stands for as it is now: a stepper's template with the numbers typed so far (a
 * number not yet typed counts as the range's lowest).
 */
function controlMove(control) {
  const move = JSON.parse(control.dataset.move);
  if (control.tagName === "FORM") {
    for (const input of control.querySelectorAll("input[name]")) {
      const typed = Number(input.value);
      move[input.name] = input.value !== "" && Number.isFinite(typed) ? typed : Number(input.min);
    }
  }
  return move;
}

/** The preview of a control: the game's words for its move, or a renderer's own (a card to choose). */
function previewOf(el) {
  const control = el?.closest?.("#board [data-move], #board [data-preview], #actions [data-move], #actions [data-preview]");
  if (!control || !page.ctx) return null;
  if (control.dataset.preview) return control.dataset.preview;
  if (!control.dataset.move) return null;
  try {
    return page.game.preview?.(controlMove(control), page.ctx) || control.getAttribute("title") || null;
  } catch (error) { // a move shaped unlike its preview expects must not stop the table
    console.error(error);
    return null;
  }
}

/**
 * The preview region (visible, polite): what the pointed-at or focused move does in the rules' words;
 * with nothing pointed at, how to see it.  Only while this seat has moves to choose from.
 */
function showPreview(el) {
  const box = $("preview");
  const text = previewOf(el) ?? previewOf(document.activeElement);
  const open = page.ctx?.moves.length > 0 && !page.offline;
  box.hidden = !open;
  box.dataset.shown = text ? "move" : "hint";
  if (!open) {
    delete box.dataset.text;
    return fill(box);
  }
  if (box.dataset.text === (text ?? "")) return; // unchanged: nothing new to announce
  box.dataset.text = text ?? "";
  box.classList.remove("open");
  // on a phone the line is one line until opened ("more": its only control, which covers nothing)
  const more = h("button", { type: "button", class: "preview-more", "aria-expanded": "false",
    title: t("preview.moreLabel") }, t("preview.more"));
  more.addEventListener("click", () => {
    const open = box.classList.toggle("open");
    more.setAttribute("aria-expanded", String(open));
    fill(more, t(open ? "preview.less" : "preview.more"));
  });
  // a touch screen has no pointing: a tap on a button plays it, a number field shows its move
  const touch = window.matchMedia("(pointer: coarse)").matches;
  fill(box, h("span", { class: "preview-text" }, text ? [h("strong", {}, t("preview.label")), " ", text]
    : h("span", { class: "small" }, t(touch ? "preview.hintTouch" : "preview.hint"))), text ? more : null);
}

function followPreviews() {
  for (const id of ["board", "actions"]) {
    const area = $(id);
    area.addEventListener("mouseover", (event) => showPreview(event.target));
    area.addEventListener("mouseleave", () => showPreview(null));
    area.addEventListener("focusin", (event) => showPreview(event.target));
    area.addEventListener("input", (event) => {
      showPreview(event.target);
      const refused = event.target.closest(".with-problem"); // a new number: the old refusal goes
      if (refused) {
        refused.querySelector(".problem")?.remove();
        page.problem = null;
      }
    });
  }
}

// -- replaying a finished match ---------------------------------------------------------------------
async function replayTo(step) {
  try {
    page.replay = await get(`/matches/${encodeURIComponent(matchId)}/replay?step=${step}`, token);
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    fill($("replay"), h("p", { class: "problem", role: "alert" }, t("replay.cannot", { detail: problem.text })));
    return;
  }
  document.body.dataset.replayStep = page.replay.step;
  render();
}

// the replay's arrows in glyphs every font has (⏮ and ⏭ are missing from Debian's default fonts)
const ICONS = { first: "|◀", back: "◀", next: "▶", last: "▶|" };
const icon = (name) => h("span", { class: "icon", "aria-hidden": "true" }, ICONS[name]);

function renderReplay() {
  const box = $("replay");
  if (page.snap.status !== "finished") return fill(box);
  const r = page.replay;
  const button = (key, text, step, disabled) => {
    const b = h("button", { type: "button", "data-replay": key, disabled }, text);
    b.addEventListener("click", () => (step === null ? leaveReplay() : replayTo(step)));
    return b;
  };
  if (!r) {
    return fill(box, h("h2", {}, t("replay.title")), h("p", {}, t("replay.lead")),
      button("start", t("replay.start"), 0, false));
  }
  // the move's own sentences name who made it ("Random bot passed."); a move without any says it plainly
  const said = !r.step ? t("replay.opening") : r.events.length ? r.events.map((e) => sentence({ ...e, seq: 0 })).join(" ")
    : sentence({ type: "moved", data: { seat: r.seat, move: r.move }, seq: 0 });
  fill(box, h("h2", {}, t("replay.title")),
    h("p", { class: "replay-step", "aria-live": "polite" }, h("strong", {}, t("replay.step", { step: r.step, steps: r.steps })),
      " · ", said),
    h("div", { class: "controls" },
      button("first", [icon("first"), ` ${t("replay.first")}`], 0, r.step === 0),
      button("back", [icon("back"), ` ${t("replay.back")}`], r.step - 1, r.step === 0),
      button("next", [`${t("replay.next")} `, icon("next")], r.step + 1, r.step === r.steps),
      button("last", [`${t("replay.last")} `, icon("last")], r.steps, r.step === r.steps),
      button("leave", t("replay.leave"), null, false)));
}

/** A finished match's analysis (./analysis.js, loaded then). */
function renderAnalysis() {
  if (page.snap.status !== "finished") return fill($("analysis"));
  page.analysing ??= import("./analysis.js").then(async (m) => {
    page.analysis = await m.panel({ matchId, box: $("analysis"), talk, onStep: replayTo, onChange: renderLog });
  });
  page.analysis?.render(page.replay?.step ?? null);
}

function leaveReplay() {
  page.replay = null;
  delete document.body.dataset.replayStep;
  render();
}

/** What just changed is marked for a moment: every labelled part of the picture whose text changed. */
function highlight() {
  const texts = new Map();
  document.querySelectorAll("#board [aria-label], #board [data-key]").forEach((el) => {
    const key = el.dataset.key || el.getAttribute("aria-label");
    if (el.matches("button, input, form")) return;
    const plain = el.cloneNode(true); // what the table shows, not which moves are offered on it
    plain.querySelectorAll("button, form, input").forEach((control) => control.remove());
    const text = plain.textContent;
    texts.set(key, text);
    if (page.texts && page.texts.has(key) && page.texts.get(key) !== text) el.classList.add("changed");
  });
  // an outer part is marked only when none of its inner parts is
  for (const el of document.querySelectorAll("#board .changed")) {
    if (el.querySelector(".changed")) el.classList.remove("changed");
  }
  page.texts = texts;
}

function renderHelp(snap) {
  const phase = snap.view?.phase ?? (snap.status === "finished" ? "over" : null);
  const key = `help.${snap.game}.${phase}`;
  const general = `help.${snap.game}`;
  if (!has(key) && !has(general)) return fill($("help"));
  const open = $("help").querySelector("details")?.open ?? false;
  fill($("help"), h("details", { open }, h("summary", {}, t("help.title"), phase ? ` · ${talk.phase(phase)}` : ""),
    has(key) ? h("p", {}, t(key)) : null,
    has(general) ? h("p", {}, t(general)) : null,
    h("p", { class: "small" }, t("help.source", { book: t(`book.${snap.game}`) }))));
}

function problemNote() {
  return h("p", { class: "problem", role: "alert", tabindex: "-1" }, t("table.refused", { detail: page.problem.detail }));
}

function statusLine(snap) {
  if (snap.status === "waiting") {
    const open = snap.seats.filter((s) => !s.joined).length;
    return t("status.waiting", { n: open });
  }
  if (snap.status === "scoring") return t("status.scoring");
  if (snap.status === "finished") return `${t("status.finished")} ${talk.winners(snap.result?.winners)}`;
  if (snap.status === "aborted") return t("status.aborted");
  const me = snap.seat;
  const others = snap.to_act.filter((s) => s !== me);
  const phase = snap.view?.phase ? ` ${t("status.phase", { phase: talk.phase(snap.view.phase) })}` : "";
  if (snap.to_act.length > 1) {
    // a simultaneous decision: who is still to decide, never what anyone chose
    const mine = snap.to_act.includes(me) ? `${t("status.yourDecision")} ` : "";
    return `${mine}${t("status.stillToDecide", { names: talk.names(snap.to_act) })}${phase}`;
  }
  if (snap.to_act.includes(me)) return `${t("status.yourTurn")}${phase}`;
  return others.length ? `${t("status.toAct", { names: talk.names(others) })}${phase}` : "";
}

function renderLog() {
  // replaying, the log follows the step: the events up to the move shown
  const upTo = page.replay?.version ?? Infinity;
  const events = page.events.filter((e) => !NOT_LOGGED.has(e.type) && !(e.version > upTo));
  const latest = events.length ? events[events.length - 1].seq : 0;
  if (latest !== page.loggedUpTo) { // lines that came since the last ones drawn stay marked until others come
    const seen = page.shownSeqs;
    page.newSeqs = new Set(seen ? events.filter((e) => !seen.has(e.seq)).map((e) => e.seq) : []);
    page.shownSeqs = new Set(events.map((e) => e.seq));
    page.loggedUpTo = latest;
  }
  const mark = page.analysis?.marker() ?? (() => null); // its mistakes
  const list = events.slice(-300).map((e) => h("li", {
    "data-seq": e.seq, class: page.newSeqs?.has(e.seq) ? "new" : null,
  }, mark(e), sentence(e))).reverse();
  fill($("log"), list);
}

function sentence(event) {
  const say = page.game.SENTENCES[event.type] || COMMON[event.type];
  try {
    return capital((say && say(event.data, talk)) || fallback(event, talk));
  } catch (error) { // an event shaped unlike its sentence expects must not stop the table
    console.error(error);
    return capital(fallback(event, talk));
  }
}

/** A seat that never moved is told why the match ended without it (Dice Party: a round ends when one party
 * wins it); known once the page holds the match's events, which may come after its end is drawn. */
function unmoved(snap) {
  const heard = page.events.some((e) => e.type === "match_created" || e.type === "match_started");
  const moved = page.events.some((e) => e.type === "moved" && e.data.seat === snap.seat);
  return snap.seat !== null && heard && !moved && !page.replay;
}

function renderResult(snap) {
  const { result } = snap;
  const explain = (seat) => (page.game.breakdown ? page.game.breakdown(result.breakdown[seat], talk)
    : readable(result.breakdown[seat]));
  const rows = result.ranking.flatMap((seats, place) => seats.map((seat) => h("tr", {},
    h("td", {}, `${place + 1}.`),
    h("th", { scope: "row" }, talk.name(seat), result.winners.includes(seat) ? ` ★ ${t("result.winner")}` : ""),
    h("td", {}, num(result.scores[seat])),
    h("td", {}, explain(seat)))));
  return [
    h("h2", {}, t("result.title")),
    unmoved(snap) ? h("p", { class: "note", "data-no-move": "" }, t("result.noMove"),
      has(`result.noMove.${snap.game}`) ? ` ${t(`result.noMove.${snap.game}`)}` : "") : null,
    h("table", { class: "result" }, h("thead", {}, h("tr", {}, h("th", {}, t("result.place")), h("th", {}, t("result.seat")),
      h("th", {}, t("result.score")), h("th", {}, t("result.how")))), h("tbody", {}, rows)),
    page.game.finale ? page.game.finale({ ...talk, snap, matchId }) : null,
  ];
}

// -- start ------------------------------------------------------------------------------------------
async function start() {
  await loadLanguage();
  fill($("back"), t("table.lobby"));
  fill($("title"), t("table.loading"));
  fill($("board-h"), t("table.board"));
  fill($("log-h"), t("log.title"), " ", h("small", {}, t("log.newestFirst")));
  $("seats").setAttribute("aria-label", t("table.seats"));
  $("actions").setAttribute("aria-label", t("table.yourMoves"));
  renderPrefs();
  if (fragment.has("token") && !token) return fail(t("error.emptyToken"));
  try {
    await load();
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    if (problem.code === "bad_token") return fail(t("error.badToken"));
    if (problem.code === "unknown_match") return fail(t("error.unknownMatch"));
    return fail(t("error.cannotShow", { detail: problem.text }));
  }
  const { snap } = page;
  // the game's own renderer, or the generic table (./generic.js) for a game without one
  let info;
  try {
    info = await get(`/games/${encodeURIComponent(snap.game)}`);
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    return fail(t("error.unknownGame", { game: snap.game }));
  }
  await loadGameWords(info); // the words the game's package gives the table (its title, phases, moves, events)
  page.game = await import(info.table ?? "./generic.js");
  page.game.setup?.(info);
  page.title = has(`game.${snap.game}`) ? t(`game.${snap.game}`) : info.title;
  if (!token) {
    fill($("notice"), h("p", { class: "note" }, t("table.watching"), " ", h("a", { href: "/" }, t("table.backToLobby"))));
  } else if (snap.seat === null) {
    fill($("notice"), h("p", { class: "note" }, t("table.hostLink")));
  }
  let invites = [];
  try { invites = JSON.parse(sessionStorage.getItem(`referee.invites.${matchId}`) || "[]"); } catch { /* none kept */ }
  if (token && invites.length) { // the links made when this seat created the match, for it to send
    fill($("notice"), h("div", { class: "note invites" }, h("p", {}, t("table.invites")),
      h("ul", {}, invites.map((s) => h("li", {}, `${s.name} (${t("seat.n", { n: s.seat + 1 })}): `,
        h("a", { href: s.link }, s.link))))));
  }
  if (token && snap.seat !== null && fragment.has("invite")) { // a link the lobby made for a guest
    const { askName } = await import("./naming.js");
    page.naming = askName(snap, matchId, token, () => { page.naming.remove(); page.naming = null; refresh(true); });
    if (page.naming) $("notice").after(page.naming);
  }
  followPreviews();
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
    onStatus: connection,
  });
}

start();
