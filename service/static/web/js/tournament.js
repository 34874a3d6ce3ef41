// A tournament's live page: its standings and rounds, read from GET /tournaments/{id} every two seconds
// while it runs (the same JSON any client reads), in the page's language.

import { get } from "./api.js";
import { fill, h, languageSwitch, num } from "./dom.js";
import { botName, has, loadLanguage, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const id = decodeURIComponent(location.pathname.split("/")[2] || "");
const EVERY_MS = 2000;
const COLUMNS = ["rank", "participant", "points", "buchholz", "sonneborn_berger", "matches", "wins", "byes", "forfeits"];

/** A participant as the page says it: a built-in bot by its kind's name (and its budget or label, which name it
 * apart: `builtin:greedy#2`, `builtin:search@300ms`), a bot account by its own. */
function who(participant) {
  const found = /^builtin:([a-z_]+)(.*)$/.exec(participant);
  return found ? `${botName(found[1])}${found[2] ? ` ${found[2]}` : ""}` : participant;
}
const points = (p) => num(p, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const cell = (row, c) => {
  if (c === "participant") return who(row[c]);
  return ["points", "buchholz", "sonneborn_berger"].includes(c) ? points(row[c]) : num(row[c]);
};

function render(tour) {
  const game = has(`game.${tour.game}`) ? t(`game.${tour.game}`) : tour.game;
  const title = `${game} · ${t(`tour.format.${tour.format}`)}`;
  $("title").textContent = title;
  document.title = `${t("tour.title")} · ${title}`;
  $("status").textContent = t("tour.status", {
    status: t(`tour.state.${tour.status}`), round: tour.round, total: tour.rounds_total,
    n: tour.participants.length, per: tour.players_per_match });
  // a region of its own scrolls sideways on a narrow screen, never the page (9 columns)
  fill($("standings"), h("div", { class: "wide", role: "region", tabindex: "0", "aria-label": t("tour.standings") }, h("table", { class: "standings" },
    h("thead", {}, h("tr", {}, COLUMNS.map((c) => h("th", { scope: "col" }, t(`tour.col.${c}`))))),
    h("tbody", {}, tour.standings.map((row) => h("tr", {}, COLUMNS.map((c) => h("td", {}, cell(row, c)))))))));
  fill($("rounds"), [...tour.rounds].reverse().map((r) => h("article", {},
    h("h3", {}, t("tour.round", { n: r.round })),
    h("ul", {}, r.matches.map((m) => h("li", {},
      h("a", { href: `/matches/${m.match_id}/table` }, m.seats.map((s) => who(s.participant)).join(` ${t("tour.vs")} `)),
      ` · ${has(`lobby.status.${m.status}`) ? t(`lobby.status.${m.status}`) : m.status}`,
      m.points ? ` · ${m.points.map(points).join(" / ")}` : ""))),
    r.byes.length ? h("p", { class: "small" }, t("tour.byes", { names: r.byes.map(who).join(", ") })) : "")));
  return tour.status === "running";
}

async function refresh() {
  let again = true;
  try {
    again = render(await get(`/tournaments/${encodeURIComponent(id)}`));
  } catch (problem) {
    $("status").textContent = problem.text || problem.detail || String(problem);
  }
  if (again) setTimeout(refresh, EVERY_MS);
}

async function start() {
  await loadLanguage();
  document.title = t("tour.title");
  fill($("standings-h"), t("tour.standings"));
  fill($("rounds-h"), t("tour.rounds"));
  fill($("prefs"), languageSwitch());
  refresh();
}

start();
