// Your name at the table: a module of its own, loaded only by a guest's invitation link (the table page's
// weight stays within its budget for everyone else).

import { call, Problem } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";

const NAME_KEY = "referee.name"; // the lobby's: the name this browser last played under

function storedName() {
  try { return localStorage.getItem(NAME_KEY) || ""; } catch { return ""; }
}

/** An invited seat carries the name its inviter typed ("Player 2"); its holder is asked for theirs unless this
 * browser plays under that name already, prefilled from the lobby's.  The form, or null when nothing is to ask;
 * ``named()`` runs once the name is given (everyone's table learns it from the event seat_named). */
export function askName(snap, matchId, token, named) {
  const mine = snap.seats[snap.seat];
  if (["finished", "aborted"].includes(snap.status) || mine.bot || mine.name === storedName()) return null;
  const input = h("input", { id: "seat-name", name: "name", maxlength: 40, required: true, autocomplete: "nickname",
    value: storedName(), placeholder: t("lobby.namePlaceholder") });
  const said = h("span", { class: "problem", role: "alert" });
  async function give(event) {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) return input.focus();
    try {
      await call("PATCH", `/matches/${encodeURIComponent(matchId)}/seats/${snap.seat}`, { token, body: { name } });
    } catch (problem) {
      if (!(problem instanceof Problem)) throw problem;
      return fill(said, ` ${problem.text}`);
    }
    try { localStorage.setItem(NAME_KEY, name); } catch { /* not remembered */ }
    named();
  }
  return h("form", { class: "note naming", "data-naming": "", onsubmit: give },
    h("label", { for: "seat-name" }, `${t("table.nameAsk", { name: mine.name || t("seat.n", { n: snap.seat + 1 }) })} `),
    input, " ", h("button", { type: "submit" }, t("table.nameGive")), said);
}
