// The lobby: your name first, a form to create a match, open matches to join, live matches to watch,
// and the games.  Creating a match with a seat for you takes you to your table.

import { get, post, Problem, seatLink } from "./api.js";
import { fill, h, languageSwitch, words } from "./dom.js";
import { botName, has, loadGameWords, loadLanguage, seatName, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const NAME_KEY = "referee.name";

let games = [];
let onlineBots = []; // bot accounts holding their event stream now (GET /bots?online=true): a seat may be one

const myName = () => $("my-name").value.trim();

/** An option's name and a value of it in the page's language (the API's own name where the catalogue has none). */
// a game's package words its own options: lobby.opt.<game>.<name>
const optName = (name, game) => (has(`lobby.opt.${game}.${name}`) ? t(`lobby.opt.${game}.${name}`)
  : has(`lobby.opt.${name}`) ? t(`lobby.opt.${name}`) : words(name));
const optValue = (name, value) => {
  if (value === null || value === undefined) return t("lobby.random");
  const key = typeof value === "boolean" ? `lobby.val.${value}` : `lobby.val.${name}.${value}`;
  return has(key) ? t(key) : String(value);
};
/** A game's name in the page's language; a game installed from another package brings its own title. */
const title = (g) => (has(`game.${g.name}`) ? t(`game.${g.name}`) : g.title);
const titleOf = (name) => title(games.find((g) => g.name === name) || { name, title: name });

// -- the games ----------------------------------------------------------------------------------------
function renderGames() {
  fill($("games"), games.map((g) => h("article", { class: "game-card" },
    h("h3", {}, title(g)), h("p", {}, has(`lobby.summary.${g.name}`) ? t(`lobby.summary.${g.name}`) : g.summary),
    h("p", { class: "small" }, t("lobby.players", { min: g.min_players, max: g.max_players }), " · ",
      t("lobby.options"), " ",
      Object.entries(g.options).map(([k, v]) => `${optName(k, g.name)} (${t("lobby.default", { value: optValue(k, v) })})`)
        .join(", ") || t("lobby.none"),
      ` · ${t("lobby.bots")} ${g.bots.map(botName).join(", ")}`))));
}

// -- creating a match ---------------------------------------------------------------------------------
function optionField(game, name, value) {
  const id = `opt-${name}`;
  if (typeof value === "boolean") {
    return h("label", {}, h("input", { type: "checkbox", id, name, checked: value }), ` ${optName(name, game.name)}`);
  }
  const choices = [...new Set([value, ...game.variants.map((v) => v[name]).filter((x) => x !== undefined)])];
  if (typeof value === "string") {
    return h("label", {}, `${optName(name, game.name)} `, h("select", { id, name }, choices.map((c) => h("option", { value: c }, optValue(name, c)))));
  }
  // a number or a letter (first seat, a removed celebrity); empty keeps the default
  return h("label", {}, `${optName(name, game.name)} `, h("input", { type: "text", id, name, size: 8,
    placeholder: value === null ? t("lobby.defaultPlaceholder") : String(value) }));
}

function renderCreate() {
  const form = $("create");
  const game = games.find((g) => g.name === form.elements.game?.value) || games[0];
  const players = Math.min(Math.max(Number(form.elements.players?.value) || game.min_players, game.min_players),
    game.max_players);
  const kinds = [["me", t("lobby.kind.me")], ["person", t("lobby.kind.person")], ["open", t("lobby.kind.open")],
    ...game.bots.map((b) => [`bot:${b}`, botName(b)]),
    ...onlineBots.filter((b) => b.games.includes(game.name)).map((b) => [`account:${b.name}`,
      t("lobby.kind.account", { name: b.name })])];
  const seatRows = Array.from({ length: players }, (_, i) => h("li", {},
    h("label", {}, `${t("seat.n", { n: i + 1 })} `, h("select", { name: `seat-${i}`, "data-seat": i },
      kinds.map(([value, label]) => h("option", { value, selected: value === (i === 0 ? "me" : "bot:greedy") }, label))))));
  fill(form,
    h("label", {}, `${t("lobby.game")} `, h("select", { name: "game", onchange: renderCreate },
      games.map((g) => h("option", { value: g.name, selected: g === game }, title(g))))),
    h("label", {}, `${t("lobby.playerCount")} `, h("input", { type: "number", name: "players", min: game.min_players,
      max: game.max_players, value: players, onchange: renderCreate })),
    h("fieldset", {}, h("legend", {}, t("lobby.seats")), h("ol", { class: "seat-list" }, seatRows)),
    h("fieldset", {}, h("legend", {}, t("lobby.optionsTitle")),
      Object.entries(game.options).map(([name, value]) => optionField(game, name, value))),
    h("label", {}, h("input", { type: "checkbox", name: "listed", checked: true }), ` ${t("lobby.listed")}`),
    h("button", { type: "submit" }, t("lobby.create")));
}

async function create(event) {
  event.preventDefault();
  const form = event.target;
  const game = games.find((g) => g.name === form.elements.game.value);
  const selects = [...form.querySelectorAll("[data-seat]")];
  if (selects.some((s) => s.value === "me") && !myName()) {
    fill($("created"), h("p", { class: "problem", role: "alert" }, t("lobby.nameFirst")));
    $("my-name").focus();
    return;
  }
  const seats = selects.map((select, i) => {
    if (select.value === "me") return { name: myName() };
    if (select.value === "person") return { name: t("lobby.playerN", { n: i + 1 }) };
    if (select.value.startsWith("bot:")) return { bot: select.value.slice(4) };
    if (select.value.startsWith("account:")) return { bot_account: select.value.slice(8) };
    return {};
  });
  const options = {};
  for (const name of Object.keys(game.options)) {
    const input = form.elements[name];
    if (input.type === "checkbox") options[name] = input.checked;
    else if (input.value.trim() !== "") {
      const text = input.value.trim();
      options[name] = /^\d+$/.test(text) ? Number(text) : text;
      if (name === "first_seat" && typeof options[name] === "number") options[name] -= 1; // seats read 1, 2, ... on the page
    }
  }
  try {
    const match = await post("/matches", { game: game.name, players: seats.length, options, seats,
      listed: form.elements.listed.checked });
    const mine = match.seats.find((s) => s.token && selects[s.seat].value === "me");
    const invites = match.seats.filter((s) => s.token && s !== mine)
      .map((s) => ({ seat: s.seat, name: s.name, link: seatLink(match.id, s.token, true) }));
    if (mine) { // to your table; the links for the others wait there for you to send
      try { sessionStorage.setItem(`referee.invites.${match.id}`, JSON.stringify(invites)); } catch { /* shown here only */ }
      location.assign(seatLink(match.id, mine.token));
      return;
    }
    fill($("created"), h("div", { class: "note" }, h("p", {}, t("lobby.created", { id: match.id })),
      h("ul", {}, invites.map((s) => h("li", {}, `${s.name} (${t("seat.n", { n: s.seat + 1 })}): `,
        h("a", { href: s.link }, t("lobby.seatLink")), ` ${t("lobby.sendIt")}`))),
      h("p", {}, h("a", { href: seatLink(match.id) }, t("lobby.watch")))));
    refreshLists();
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    fill($("created"), h("p", { class: "problem", role: "alert" }, t("lobby.notCreated", { detail: problem.text })));
  }
}

// -- joining and watching -----------------------------------------------------------------------------
async function join(match, button) {
  const name = myName();
  if (!name) {
    button.after(h("span", { class: "problem", role: "alert" }, ` ${t("lobby.nameFirst")}`));
    $("my-name").focus();
    return;
  }
  try {
    const joined = await post(`/matches/${match.id}/join`, { name });
    location.assign(seatLink(match.id, joined.token));
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    button.after(h("span", { class: "problem", role: "alert" }, ` ${problem.text}`));
    refreshLists();
  }
}

const seatText = (m) => m.seats.map((s) => (s.joined ? seatName(s) : t("seat.open"))).join(", ");

async function refreshLists() {
  const [open, active, finished, bots] = await Promise.all([
    get("/matches?open=true&limit=20"), get("/matches?status=active&limit=20"), get("/matches?status=finished&limit=5"),
    get("/bots?online=true")]);
  const names = (list) => list.map((b) => b.name).join(",");
  if (names(bots.bots) !== names(onlineBots)) { // the seats' choices follow who is online (a choice made stays)
    const chosen = [...$("create").querySelectorAll("[data-seat]")].map((s) => s.value);
    onlineBots = bots.bots;
    renderCreate();
    $("create").querySelectorAll("[data-seat]").forEach((s, i) => {
      if (chosen[i] && [...s.options].some((o) => o.value === chosen[i])) s.value = chosen[i];
    });
  }
  fill($("open"), open.matches.length ? h("ul", { class: "matches" }, open.matches.map((m) => {
    const button = h("button", { type: "button", "data-join": m.id }, t("lobby.join", { game: titleOf(m.game) }));
    button.addEventListener("click", () => join(m, button));
    return h("li", {}, h("strong", {}, titleOf(m.game)), ` · ${t("lobby.nPlayers", { n: m.players })} · ${seatText(m)} `, button);
  })) : h("p", {}, t("lobby.noOpen")));
  const watchable = [...active.matches, ...finished.matches];
  fill($("watch"), watchable.length ? h("ul", { class: "matches" }, watchable.map((m) => h("li", {},
    h("strong", {}, titleOf(m.game)), ` · ${t(`lobby.status.${m.status}`)} · ${seatText(m)} `,
    h("a", { href: seatLink(m.id), "data-watch": m.id }, m.status === "active" ? t("lobby.watchLive") : t("lobby.seeEnd")))))
    : h("p", {}, t("lobby.noLive")));
}

async function start() {
  await loadLanguage();
  document.title = t("lobby.title");
  fill($("me-h"), t("lobby.you"));
  fill($("my-name-label"), t("lobby.yourName"));
  $("my-name").placeholder = t("lobby.namePlaceholder");
  $("dev-nav").setAttribute("aria-label", t("lobby.forDevelopers"));
  fill($("api-docs"), t("lobby.apiDocs"));
  fill($("create-h"), t("lobby.newMatch"));
  fill($("open-h"), t("lobby.openMatches"));
  fill($("live-h"), t("lobby.toWatch"));
  fill($("games-h"), t("lobby.theGames"));
  fill($("prefs"), languageSwitch());
  try { // a name typed while the page was still loading stays
    if (!myName()) $("my-name").value = localStorage.getItem(NAME_KEY) || "";
  } catch { /* not remembered */ }
  $("my-name").addEventListener("change", () => {
    try { localStorage.setItem(NAME_KEY, myName()); } catch { /* not remembered */ }
  });
  games = (await get("/games")).games;
  await Promise.all(games.map(loadGameWords)); // a game's package gives its title, summary and options in words
  fill($("lead"), t("lobby.lead", { n: games.length })); // as many games as are offered
  renderGames();
  renderCreate();
  $("create").addEventListener("submit", create);
  await refreshLists();
  setInterval(refreshLists, 15000);
}

start();
