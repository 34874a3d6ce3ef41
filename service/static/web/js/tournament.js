// A tournament's live page: its standings and rounds, read from GET /tournaments/{id} every two seconds
// while it runs (the same JSON any client reads).

import { get } from "./api.js";
import { fill, h } from "./dom.js";

const $ = (id) => document.getElementById(id);
const id = decodeURIComponent(location.pathname.split("/")[2] || "");
const EVERY_MS = 2000;

function render(tour) {
  $("title").textContent = `${tour.game} · ${tour.format === "swiss" ? "Swiss" : "round robin"}`;
  $("status").textContent = `${tour.status} · round ${tour.round} of ${tour.rounds_total} · `
    + `${tour.participants.length} participants, ${tour.players_per_match} per match`;
  const cols = ["rank", "participant", "points", "buchholz", "sonneborn_berger", "matches", "wins", "byes", "forfeits"];
  fill($("standings"), h("table", { class: "standings" },
    h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, c.replace("_", "-"))))),
    h("tbody", {}, tour.standings.map((row) => h("tr", {}, cols.map((c) => h("td", {}, String(row[c]))))))));
  fill($("rounds"), [...tour.rounds].reverse().map((r) => h("article", {},
    h("h3", {}, `Round ${r.round}`),
    h("ul", {}, r.matches.map((m) => h("li", {},
      h("a", { href: `/matches/${m.match_id}/table` }, m.seats.map((s) => s.participant).join(" vs ")),
      ` · ${m.status}`, m.points ? ` · ${m.points.map((p) => p.toFixed(2)).join(" / ")}` : ""))),
    r.byes.length ? h("p", { class: "small" }, `Bye: ${r.byes.join(", ")}`) : "")));
  return tour.status === "running";
}

async function refresh() {
  let again = true;
  try {
    again = render(await get(`/tournaments/${encodeURIComponent(id)}`));
  } catch (problem) {
    $("status").textContent = problem.detail || String(problem);
  }
  if (again) setTimeout(refresh, EVERY_MS);
}

refresh();
