// The generic table: any game without a renderer of its own (GET /games/{game} says `table: null`), drawn
// from the seat's view and its legal moves alone.  Every field of the view is shown (a list with one entry
// per seat is labelled by the seats' names); every legal move is a control, grouped by move type (a
// numeric range is a number field, ./moves.js); a compound turn comes one small move at a time, as the
// legal moves give it, so each step is just the controls the referee offers now.

import { h, num, readable, words } from "./dom.js";

/** Event types of this game: the page listens to them and logs them in plain words (./log.js fallback). */
export const SENTENCES = {};

let info = { help: {}, summary: "" };

/** Called once with GET /games/{game}: the game's event types, summary and rules help. */
export function setup(game) {
  info = game;
  for (const type of game.events || []) SENTENCES[type] = () => null;
}

const HIDDEN = new Set(["you"]);

function scalar(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "number") return num(value);
  if (typeof value === "boolean") return value ? "✓" : "✗";
  return String(value);
}

const isRecord = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** A value of the view as markup: records as term lists, lists of records as tables, lists by seat by name. */
function show(value, ctx, key) {
  if (!Array.isArray(value) && !isRecord(value)) return h("span", { class: "value" }, scalar(value));
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (!entries.length) return h("span", { class: "small" }, "–");
    return h("dl", { class: "generic-record" },
      entries.map(([k, v]) => [h("dt", {}, words(k)), h("dd", { "data-key": `${key}.${k}` }, show(v, ctx, `${key}.${k}`))]));
  }
  if (!value.length) return h("span", { class: "small" }, "–");
  // one entry per seat: a plural field as long as the table has seats, of scalars or lists (not records)
  const name = String(key).split(".").pop();
  const bySeat = value.length === ctx.snap.seats.length && name.endsWith("s") && name !== "to_act"
    && !value.every(isRecord);
  if (value.every((v) => !Array.isArray(v) && !isRecord(v)) && !bySeat) {
    return h("span", { class: "value" }, value.map(scalar).join(", "));
  }
  if (value.every(isRecord) && !bySeat) {
    const columns = [...new Set(value.flatMap((r) => Object.keys(r)))];
    return h("table", { class: "generic-table" },
      h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, words(c))))),
      h("tbody", {}, value.map((r) => h("tr", {}, columns.map((c) => h("td", {}, readableCell(r[c])))))));
  }
  return h("table", { class: "generic-table" }, h("tbody", {}, value.map((v, i) => h("tr",
    { class: bySeat && i === ctx.seat ? "you" : null },
    h("th", { scope: "row" }, bySeat ? ctx.name(i) : String(i + 1)),
    h("td", { "data-key": `${key}.${i}` }, show(v, ctx, `${key}.${i}`))))));
}

const readableCell = (v) => (Array.isArray(v) || isRecord(v) ? readable(v) : scalar(v));

/** The legal moves, one group per move type; each move a control (a range: a number field). */
function moves(ctx) {
  const types = [...new Set(ctx.moves.map((m) => m.type))];
  if (!types.length) return null;
  return h("section", { class: "panel generic-moves", "aria-label": ctx.t("table.yourMoves") },
    types.map((type) => h("fieldset", { "data-move-type": type }, h("legend", {}, words(type)),
      h("div", { class: "controls" }, ctx.movesOf(type).map((m) => ctx.control(m, label(m)))))));
}

/** A move's words: its fields with their values (a range is filled in by its number field). */
function label(move) {
  const fixed = Object.entries(move).filter(([k, v]) => k !== "type" && !(isRecord(v) && "min" in v));
  const rest = fixed.map(([k, v]) => `${words(k)} ${Array.isArray(v) ? v.join(", ") : scalar(v)}`);
  return words(move.type) + (rest.length ? `: ${rest.join(", ")}` : "");
}

function help(ctx) {
  const phase = ctx.view?.phase;
  const text = [info.summary, phase ? info.help?.[phase] : null, ...Object.entries(info.help || {})
    .filter(([p]) => !phase && p).map(([, v]) => v)].filter(Boolean);
  if (!text.length) return null;
  return h("details", { class: "generic-help" }, h("summary", {}, ctx.t("help.title")), text.map((p) => h("p", {}, p)));
}

export function render(ctx) {
  const view = ctx.view || {};
  const fields = Object.entries(view).filter(([k]) => !HIDDEN.has(k));
  return [
    help(ctx),
    moves(ctx),
    h("section", { class: "panel generic-view", "aria-label": ctx.t("table.board"), "data-generic": "" },
      h("dl", { class: "generic-record" }, fields.map(([k, v]) => [
        h("dt", {}, words(k)), h("dd", { "data-key": k, "data-field": k }, show(v, ctx, k))]))),
  ];
}
