// The lobby: the games, open matches to join, live matches to watch, and a form to create a match.

import { get, post, Problem, seatLink } from "./api.js";
import { fill, h, words } from "./dom.js";

const $ = (id) => document.getElementById(id);

const SUMMARIES = {
  super_blatt: "Newspaper editors take scoops from four stair-step columns; each round's trend card says which "
    + "categories pay. EXTRA cards give another scoop, arrows steal from a rival. Three rounds.",
  paparazzo: "Photographers trade celebrity photos: the mediator offers a face-up photo, offers go round, the "
    + "buyer pays. The Skandalchronik tracks who is hot; ruined careers are worth nothing. 3-5 players.",
  big_shot: "Real-estate moguls bid for cubes on 18 auction spaces round a ring and place them on 13 lots; the "
    + "broker's die decides what is on offer. Control lots, avoid debts. 2-4 players.",
  dice_party: "Throw a party with dice: Party People, VIPs and Mobs. Steal, provoke, send mobs to your rivals and "
    + "grow your party until someone wins the round. 2-6 players.",
  picture_perfect: "Photographers arrange the wedding guests for one photo. Six rounds of exchanges (dances, "
    + "gifts, rumours, thefts, auctions) bring you guests and their secret wishes; then place them on the mat.",
};
const SEAT_KINDS = [["me", "Me"], ["person", "Another person (gets a link)"], ["open", "Open (anyone may join)"]];

let games = [];

// -- the games ----------------------------------------------------------------------------------------
function renderGames() {
  fill($("games"), games.map((g) => h("article", { class: "game-card" },
    h("h3", {}, g.title), h("p", {}, SUMMARIES[g.name] || ""),
    h("p", { class: "small" }, `${g.min_players}-${g.max_players} players · options: `,
      Object.entries(g.options).map(([k, v]) => `${words(k)} (default ${v ?? "random"})`).join(", ") || "none",
      ` · bots: ${g.bots.join(", ")}`))));
}

// -- creating a match ---------------------------------------------------------------------------------
function optionField(game, name, value) {
  const id = `opt-${name}`;
  if (typeof value === "boolean") {
    return h("label", {}, h("input", { type: "checkbox", id, name, checked: value }), ` ${words(name)}`);
  }
  const choices = [...new Set([value, ...game.variants.map((v) => v[name]).filter((x) => x !== undefined)])];
  if (typeof value === "string") {
    return h("label", {}, `${words(name)} `, h("select", { id, name }, choices.map((c) => h("option", { value: c }, c))));
  }
  // a number or a letter (first seat, a removed celebrity); empty keeps the default
  return h("label", {}, `${words(name)} `, h("input", { type: "text", id, name, size: 8,
    placeholder: value === null ? "default" : String(value) }));
}

function renderCreate() {
  const form = $("create");
  const game = games.find((g) => g.name === form.elements.game?.value) || games[0];
  const players = Math.min(Math.max(Number(form.elements.players?.value) || game.min_players, game.min_players),
    game.max_players);
  const kinds = [...SEAT_KINDS, ...game.bots.map((b) => [`bot:${b}`, `${b} bot`])];
  const seatRows = Array.from({ length: players }, (_, i) => h("li", {},
    h("label", {}, `Seat ${i} `, h("select", { name: `seat-${i}`, "data-seat": i },
      kinds.map(([value, label]) => h("option", { value, selected: value === (i === 0 ? "me" : "bot:greedy") }, label))))));
  fill(form,
    h("label", {}, "Game ", h("select", { name: "game", onchange: renderCreate },
      games.map((g) => h("option", { value: g.name, selected: g === game }, g.title)))),
    h("label", {}, "Players ", h("input", { type: "number", name: "players", min: game.min_players,
      max: game.max_players, value: players, onchange: renderCreate })),
    h("fieldset", {}, h("legend", {}, "Seats"), h("ol", { class: "seat-list", start: 0 }, seatRows)),
    h("fieldset", {}, h("legend", {}, "Options"),
      Object.entries(game.options).map(([name, value]) => optionField(game, name, value))),
    h("label", {}, h("input", { type: "checkbox", name: "listed", checked: true }), " list it in the lobby"),
    h("button", { type: "submit" }, "Create the match"));
}

async function create(event) {
  event.preventDefault();
  const form = event.target;
  const game = games.find((g) => g.name === form.elements.game.value);
  const myName = $("my-name").value.trim() || "Me";
  const seats = [...form.querySelectorAll("[data-seat]")].map((select, i) => {
    if (select.value === "me") return { name: myName };
    if (select.value === "person") return { name: `Player ${i + 1}` };
    if (select.value.startsWith("bot:")) return { bot: select.value.slice(4) };
    return {};
  });
  const options = {};
  for (const name of Object.keys(game.options)) {
    const input = form.elements[name];
    if (input.type === "checkbox") options[name] = input.checked;
    else if (input.value.trim() !== "") {
      const text = input.value.trim();
      options[name] = /^\d+$/.test(text) ? Number(text) : text;
    }
  }
  try {
    const match = await post("/matches", { game: game.name, players: seats.length, options, seats,
      listed: form.elements.listed.checked });
    const links = match.seats.filter((s) => s.token).map((s) => h("li", {},
      `${s.name} (seat ${s.seat}): `, h("a", { href: seatLink(match.id, s.token) }, "seat link"),
      seats[s.seat].name === myName ? " ← yours" : " (send it to them; it is their key)"));
    fill($("created"), h("div", { class: "note" }, h("p", {}, `Match ${match.id} created.`), h("ul", {}, links),
      h("p", {}, h("a", { href: seatLink(match.id) }, "Watch as a spectator"))));
    refreshLists();
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    fill($("created"), h("p", { class: "problem", role: "alert" }, `Not created: ${problem.detail}`));
  }
}

// -- joining and watching -----------------------------------------------------------------------------
async function join(match, button) {
  const name = $("my-name").value.trim();
  if (!name) {
    button.after(h("span", { class: "problem", role: "alert" }, " Enter your name first."));
    $("my-name").focus();
    return;
  }
  try {
    const joined = await post(`/matches/${match.id}/join`, { name });
    location.assign(seatLink(match.id, joined.token));
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    button.after(h("span", { class: "problem", role: "alert" }, ` ${problem.detail}`));
    refreshLists();
  }
}

const seatText = (m) => m.seats.map((s) => (s.joined ? s.name : "open seat")).join(", ");

async function refreshLists() {
  const [open, active, finished] = await Promise.all([
    get("/matches?open=true&limit=20"), get("/matches?status=active&limit=20"), get("/matches?status=finished&limit=5")]);
  fill($("open"), open.matches.length ? h("ul", { class: "matches" }, open.matches.map((m) => {
    const button = h("button", { type: "button", "data-join": m.id }, `Join ${m.title}`);
    button.addEventListener("click", () => join(m, button));
    return h("li", {}, h("strong", {}, m.title), ` · ${m.players} players · ${seatText(m)} `, button);
  })) : h("p", {}, "No match is waiting for players: create one above."));
  const watchable = [...active.matches, ...finished.matches];
  fill($("watch"), watchable.length ? h("ul", { class: "matches" }, watchable.map((m) => h("li", {},
    h("strong", {}, m.title), ` · ${m.status} · ${seatText(m)} `,
    h("a", { href: seatLink(m.id), "data-watch": m.id }, m.status === "active" ? "Watch live" : "See the end"))))
    : h("p", {}, "No match is being played right now."));
}

async function start() {
  games = (await get("/games")).games;
  renderGames();
  renderCreate();
  $("create").addEventListener("submit", create);
  await refreshLists();
  setInterval(refreshLists, 15000);
}

start();
