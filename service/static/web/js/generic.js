// The generic table: any game without a renderer of its own (GET /games/{game} says `table: null`), drawn
// from the seat's view and its legal moves alone.  Every field of the view is shown (a list with one entry
// per seat is labelled by the seats' names); every legal move is a control, grouped by move type (a
// numeric range is a number field, ./moves.js); a compound turn comes one small move at a time, as the
// legal moves give it, so each step is just the controls the referee offers now.
//
// A game's package that gives the table its words (Plugin.words: docs/writing-a-game.md, "The table's words")
// is read in them: its moves, events, view fields and result, in the page's language.  Without them the
// table falls back to the names the game's code uses.

import { h, num, readable, words } from "./dom.js";
import { has, keysOf, t } from "./i18n.js";

/** Event types of this game: the page listens to them and logs them in plain words (./log.js fallback). */
export const SENTENCES = {};

let info = { help: {}, summary: "", name: "" };

/** The game's own text for ``key`` (``<game>.<key>``), or null when its package gives none. */
const own = (key, vars) => (has(`${info.name}.${key}`) ? t(`${info.name}.${key}`, vars) : null);

/** Called once with GET /games/{game}: the game's event types, summary and rules help. */
export function setup(game) {
  info = game;
  for (const type of game.events || []) SENTENCES[type] = (data) => own(`event.${type}`, data);
}

/** What a move does, in the game's words (the move's fields and the seat's view fill the blanks). */
export function preview(move, ctx) {
  return own(`preview.${move.type}`, { ...(ctx.view || {}), ...move });
}

/** A seat's line of the final result in the game's words: each breakdown field it words, joined. */
export function breakdown(line) {
  if (!line || !has(`${info.name}.result.${Object.keys(line)[0]}`)) return readable(line);
  return Object.entries(line).filter(([k, v]) => v !== null && v !== undefined && has(`${info.name}.result.${k}`))
    .map(([k, v]) => own(`result.${k}`, { value: v, n: v })).join(" · ");
}

const HIDDEN = new Set(["you"]);

function scalar(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "number") return num(value);
  if (typeof value === "boolean") return value ? "✓" : "✗";
  return String(value);
}

const isRecord = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** A field of the view in the game's words: its own text for the value (or for this value), else as shown. */
function worded(value, ctx, key) {
  const empty = value === null || value === undefined || (Array.isArray(value) && !value.length);
  if (empty && has(`${info.name}.empty.${key}`)) return h("span", { class: "value" }, own(`empty.${key}`));
  if (!empty && has(`${info.name}.value.${key}.${value}`)) return h("span", { class: "value" }, own(`value.${key}.${value}`));
  if (!empty && has(`${info.name}.value.${key}`)) {
    return h("span", { class: "value" }, own(`value.${key}`, { value, n: typeof value === "number" ? value : undefined }));
  }
  if (Array.isArray(value) && has(`${info.name}.item.${key}`)) {
    return h("ul", { class: "generic-items" }, value.map((item) => h("li", {}, own(`item.${key}`, item))));
  }
  return show(value, ctx, key);
}

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
    h("td", { "data-key": `${key}.${i}` }, Array.isArray(v) && bySeat ? h("span", { class: "value" },
      v.length ? v.map(scalar).join(" ") : "–") : show(v, ctx, `${key}.${i}`))))));
}

const readableCell = (v) => (Array.isArray(v) || isRecord(v) ? readable(v) : scalar(v));

/** The legal moves, one group per move type; each move a control (a range: a number field). */
function moves(ctx) {
  const types = [...new Set(ctx.moves.map((m) => m.type))];
  if (!types.length) return null;
  return h("section", { class: "panel generic-moves", "aria-label": ctx.t("table.yourMoves") },
    types.map((type) => h("fieldset", { "data-move-type": type }, h("legend", {}, own(`moves.${type}`) ?? words(type)),
      h("div", { class: "controls" }, ctx.movesOf(type).map((m) => ctx.control(m, label(m)))))));
}

/** A move's words: its fields with their values (a range is filled in by its number field). */
function label(move) {
  const mine = own(`move.${move.type}`, move);
  if (mine) return mine;
  const fixed = Object.entries(move).filter(([k, v]) => k !== "type" && !(isRecord(v) && "min" in v));
  const rest = fixed.map(([k, v]) => `${words(k)} ${Array.isArray(v) ? v.join(", ") : scalar(v)}`);
  return words(move.type) + (rest.length ? `: ${rest.join(", ")}` : "");
}

function help(ctx) {
  if (has(`help.${info.name}.${ctx.view?.phase}`) || has(`help.${info.name}`)) return null; // the table's rules help says it
  const phase = ctx.view?.phase;
  const text = [info.summary, phase ? info.help?.[phase] : null, ...Object.entries(info.help || {})
    .filter(([p]) => !phase && p).map(([, v]) => v)].filter(Boolean);
  if (!text.length) return null;
  return h("details", { class: "generic-help" }, h("summary", {}, ctx.t("help.title")), text.map((p) => h("p", {}, p)));
}

export function render(ctx) {
  const view = ctx.view || {};
  // a game that words its view shows the fields it words, in its order of the view; else every field
  const hasWords = Object.keys(view).some((k) => has(`${info.name}.field.${k}`));
  const fields = Object.entries(view).filter(([k]) => !HIDDEN.has(k) && (!hasWords || has(`${info.name}.field.${k}`)));
  if (hasWords) { // in the order the game's words give them (your dice first, say)
    const order = keysOf(`${info.name}.field.`).map((key) => key.slice(`${info.name}.field.`.length));
    fields.sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
  }
  return [
    help(ctx),
    moves(ctx),
    h("section", { class: "panel generic-view", "aria-label": ctx.t("table.board"), "data-generic": "" },
      h("dl", { class: "generic-record" }, fields.map(([k, v]) => [
        h("dt", {}, own(`field.${k}`) ?? words(k)), h("dd", { "data-key": k, "data-field": k }, worded(v, ctx, k))]))),
  ];
}
