// A finished match's analysis on its table (POST/GET /matches/{id}/analysis): a button that asks for it and its
// progress, then a chart of each seat's chance to win at each of its decisions (one line per seat, x = the
// match's version), its mistakes and blunders marked, a summary per seat, and a table of the same figures for
// screen readers.  Each point is what that seat could know when it decided (docs/analysis.md).  A click on a
// point (or a row's button) steps the replay to that move.

import { get, post, Problem } from "./api.js";
import { fill, h, num } from "./dom.js";
import { addWords, lang, t } from "./i18n.js";

// SVG's namespace, as the HTML parser gives an <svg> (the page names no address)
const SVG = (() => { const tpl = document.createElement("template"); tpl.innerHTML = "<svg></svg>"; return tpl.content.firstChild.namespaceURI; })();
const POLL_MS = 1000;
/** Labels marked on the chart and in the log, with the sign chess annotators use. */
export const MARKED = { mistake: "?", blunder: "??" };
// a line's dash besides its colour, so that no line is told apart by colour alone
const DASHES = ["", "7 4", "2 3", "9 3 2 3", "4 4", "12 4"];

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== null && value !== undefined) el.setAttribute(key, value);
  for (const child of children.flat()) if (child) el.append(child);
  return el;
}

const percent = (x) => num(x, { style: "percent", maximumFractionDigits: 0 });

/**
 * The panel, with its words (../i18n/analysis/<lang>.json) and its style, asking for the analysis kept: a page
 * loads this module only for a finished match (a table in play carries none of it).
 */
export async function panel(options) {
  const style = h("link", { rel: "stylesheet", href: "/static/web/css/analysis.css" });
  const styled = new Promise((resolve) => { style.onload = resolve; style.onerror = resolve; });
  document.head.append(style);
  const words = fetch(`/static/web/i18n/analysis/${lang}.json`).then((r) => (r.ok ? r.json() : {}));
  addWords(await words);
  await styled;
  const made = new AnalysisPanel(options);
  made.load();
  return made;
}

export class AnalysisPanel {
  /**
   * ``box``: the section it fills; ``talk``: the table's namer of seats; ``onStep(step)``: show the replay at that
   * step; ``onChange()``: the analysis came (the log marks its mistakes).
   */
  constructor({ matchId, box, talk, onStep, onChange }) {
    Object.assign(this, { matchId, box, talk, onStep, onChange });
    this.state = null; // GET's answer; {status: "none"} when nobody asked yet
    this.problem = null;
    this.step = null;
    this.timer = null;
  }

  get path() { return `/matches/${encodeURIComponent(this.matchId)}/analysis`; }

  get analysis() { return this.state?.status === "done" ? this.state.analysis : null; }

  /**
   * The log's marker: for an event, "?? blunder" when it is the first line of a mistaken move (its version), else
   * null.  A new one for each drawing of the log.
   */
  marker() {
    const marks = new Map((this.analysis?.decisions || []).filter((d) => MARKED[d.label]).map((d) => [d.version, d.label]));
    return (event) => {
      const label = marks.get(event.version);
      if (!label) return null;
      marks.delete(event.version);
      return [h("span", { class: `mark ${label}`, "data-label": label }, `${MARKED[label]} ${t(`analysis.label.${label}`)}`), " "];
    };
  }

  /** Ask (``post``) or look (``get``): the analysis's state as the service answers it. */
  async fetch(call) {
    try {
      this.state = await call(this.path);
      this.problem = null;
    } catch (problem) {
      if (!(problem instanceof Problem)) throw problem;
      if (call === get && problem.code === "no_analysis") this.state = { status: "none" };
      else this.problem = problem;
    }
    this.settle();
  }

  load() { return this.fetch(get); }

  ask() { return this.fetch(post); }

  settle() {
    clearTimeout(this.timer);
    if (["queued", "running"].includes(this.state?.status)) this.timer = setTimeout(() => this.load(), POLL_MS);
    this.render(this.step);
    if (this.analysis) this.onChange();
  }

  /** Draw it, the replay standing at ``step`` (null: not replaying). */
  render(step) {
    this.step = step;
    const { state } = this;
    const head = h("h2", { id: "analysis-h" }, t("analysis.title"));
    document.body.dataset.analysis = state?.status ?? "";
    const problem = this.problem ? h("p", { class: "problem", role: "alert" }, t("analysis.cannot", { detail: this.problem.text })) : null;
    if (!state) return fill(this.box, head, problem);
    if (state.status === "none" || state.status === "failed") {
      const ask = h("button", { type: "button", "data-analysis": "ask" }, t(state.status === "none" ? "analysis.ask" : "analysis.again"));
      ask.addEventListener("click", () => this.ask());
      return fill(this.box, head, h("p", {}, t(state.status === "none" ? "analysis.lead" : "analysis.failed")), problem, ask);
    }
    if (state.status !== "done") {
      const known = state.total > 0;
      return fill(this.box, head, problem, h("p", { "aria-live": "polite" },
        known ? t("analysis.running", { done: state.done, total: state.total }) : t("analysis.queued")),
      h("progress", { max: known ? state.total : null, value: known ? state.done : null, "aria-labelledby": "analysis-h" }));
    }
    // drawn once for the analysis and the box's width (a turned phone draws it again); a replay's step only moves
    // the chart's mark of where it stands
    if (this.drawn === state && this.drawnWidth === this.box.clientWidth) return this.moveNow();
    const { analysis } = state;
    const seats = analysis.summary.map((s) => s.seat);
    const open = this.box.querySelector("details")?.open ?? false;
    fill(this.box, head, h("p", { class: "small" }, t("analysis.lead.done", { budget: analysis.budget })),
      this.chart(analysis), this.legend(seats), this.summary(analysis), this.table(analysis, open));
    this.drawn = state;
    this.drawnWidth = this.box.clientWidth;
    this.moveNow();
    if (!this.resizing) {
      this.resizing = new ResizeObserver(() => {
        if (this.drawn && Math.abs(this.box.clientWidth - this.drawnWidth) > 8) this.render(this.step);
      });
      this.resizing.observe(this.box);
    }
  }

  /** The chart's mark of the replay's step: at the last decision made before it (hidden when not replaying). */
  moveNow() {
    const { line, x, lo } = this.scale;
    const replaying = this.step !== null && this.step !== undefined;
    const played = replaying ? this.analysis.decisions.filter((d) => d.index < this.step).map((d) => d.version) : [];
    const at = played.length ? Math.max(...played) : lo;
    line.setAttribute("x1", x(at));
    line.setAttribute("x2", x(at));
    line.setAttribute("visibility", replaying ? "visible" : "hidden");
  }

  chart(analysis) {
    const width = Math.max(260, Math.round(this.box.clientWidth || 600));
    const height = width < 500 ? 190 : 240;
    const pad = { left: 40, right: 12, top: 16, bottom: 30 };
    const versions = analysis.decisions.map((d) => d.version);
    const lo = Math.min(...versions, 0);
    const hi = Math.max(...versions, lo + 1);
    const x = (v) => pad.left + ((v - lo) / (hi - lo)) * (width - pad.left - pad.right);
    const y = (p) => pad.top + (1 - p) * (height - pad.top - pad.bottom);
    const grid = [0, 0.25, 0.5, 0.75, 1].map((p) => svg("g", { class: "grid" },
      svg("line", { x1: pad.left, x2: width - pad.right, y1: y(p), y2: y(p) }),
      svg("text", { x: pad.left - 4, y: y(p) + 4, "text-anchor": "end" }, percent(p))));
    const even = 1 / analysis.players; // what a seat's chance is with nothing known: the chart's floor of interest
    const ticks = niceTicks(lo, hi, width < 500 ? 4 : 8).map((v) => svg("text", {
      class: "tick", x: x(v), y: height - pad.bottom + 16, "text-anchor": "middle" }, num(v)));
    const lines = analysis.summary.map(({ seat }, i) => {
      const mine = analysis.decisions.filter((d) => d.seat === seat);
      return svg("polyline", { class: `line seat-${seat % 6}`, "stroke-dasharray": DASHES[i % DASHES.length] || null,
        points: mine.map((d) => `${x(d.version).toFixed(1)},${y(d.win).toFixed(1)}`).join(" ") });
    });
    const points = analysis.decisions.map((d) => {
      const step = d.index + 1;
      const tip = t("analysis.point", { version: d.version, name: this.talk.name(d.seat), win: percent(d.win),
        label: t(`analysis.label.${d.label}`) });
      const mark = MARKED[d.label];
      const dot = svg("g", { class: `point seat-${d.seat % 6} ${d.label}`, "data-step": step, "data-version": d.version },
        svg("title", {}, tip),
        svg("circle", { class: "hit", cx: x(d.version), cy: y(d.win), r: 11 }),
        svg("circle", { class: "dot", cx: x(d.version), cy: y(d.win), r: mark ? 5 : 2.5 }),
        mark ? svg("text", { class: "sign", x: x(d.version), y: y(d.win) - 9, "text-anchor": "middle" }, mark) : null);
      dot.addEventListener("click", () => this.onStep(step));
      return dot;
    });
    const now = svg("line", { class: "now", y1: pad.top - 6, y2: height - pad.bottom });
    this.scale = { line: now, x, lo };
    return svg("svg", { class: "chart", width, height, viewBox: `0 0 ${width} ${height}`, "data-width": width,
      "aria-hidden": "true", focusable: "false" },
    grid, svg("line", { class: "even", x1: pad.left, x2: width - pad.right, y1: y(even), y2: y(even) }),
    svg("text", { class: "tick", x: width - pad.right, y: height - 4, "text-anchor": "end" }, t("analysis.axis")),
    ticks, now, lines, points);
  }

  legend(seats) {
    return h("ul", { class: "chart-legend" }, seats.map((seat, i) => h("li", {},
      svg("svg", { width: 28, height: 10, "aria-hidden": "true", focusable: "false" },
        svg("line", { class: `line seat-${seat % 6}`, x1: 0, x2: 28, y1: 5, y2: 5, "stroke-dasharray": DASHES[i % DASHES.length] || null })),
      " ", this.talk.name(seat))));
  }

  summary(analysis) {
    return h("ul", { class: "analysis-summary" }, analysis.summary.map((s) => h("li", { "data-seat": s.seat },
      h("strong", {}, this.talk.name(s.seat)), ": ",
      t("analysis.summary", { decisions: s.decisions, loss: percent(s.average_loss), mistakes: s.labels.mistake,
        blunders: s.labels.blunder, inaccuracies: s.labels.inaccuracy }),
      s.decisive.length ? [" ", t("analysis.decisive"), " ", s.decisive.map((i) => {
        const d = analysis.decisions[i];
        return h("button", { type: "button", class: "link", "data-step": d.index + 1, onclick: () => this.onStep(d.index + 1) },
          t("analysis.moment", { version: d.version, loss: percent(d.loss) }));
      })] : null)));
  }

  table(analysis, open) {
    // the move's number is the button that shows it in the replay: one column less on a phone
    const rows = analysis.decisions.map((d) => h("tr", { class: MARKED[d.label] ? d.label : null },
      h("td", {}, h("button", { type: "button", class: "link", "data-step": d.index + 1, onclick: () => this.onStep(d.index + 1),
        "aria-label": t("analysis.showMove", { version: d.version }) }, num(d.version))),
      h("th", { scope: "row" }, this.talk.name(d.seat)),
      h("td", {}, percent(d.win)),
      h("td", {}, percent(d.win + d.loss)), // the best move's chance (its move may be left out: compact)
      h("td", {}, percent(d.loss)),
      h("td", {}, `${t(`analysis.label.${d.label}`)}${MARKED[d.label] ? ` ${MARKED[d.label]}` : ""}`)));
    return h("details", { class: "analysis-figures", open }, h("summary", {}, t("analysis.figures")),
      h("table", { class: "figures" }, h("caption", { class: "visually-hidden" }, t("analysis.caption")),
        h("thead", {}, h("tr", {}, ["version", "seat", "win", "best", "loss", "label"].map((c) =>
          h("th", { scope: "col" }, t(`analysis.col.${c}`))))),
        h("tbody", {}, rows)));
  }
}

/** About ``count`` round numbers from ``lo`` to ``hi`` (1, 2 or 5 times a power of ten apart). */
function niceTicks(lo, hi, count) {
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(v);
  return out;
}
