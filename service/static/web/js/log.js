// The event log as sentences.  Each game module adds its own event types; these are the referee's.

import { describeMove } from "./moves.js";
import { num, words } from "./dom.js";
import { botName, t } from "./i18n.js";

export const COMMON = {
  match_created: (d) => t("log.match_created", { n: d.players }),
  seat_joined: (d, x) => t("log.seat_joined", { name: x.name(d.seat), seat: d.seat + 1 }),
  seat_named: (d, x) => t("log.seat_named", { before: d.before ?? t("seat.n", { n: d.seat + 1 }), name: x.name(d.seat) }),
  match_started: () => t("log.match_started"),
  moved: (d, x) => t("log.moved", { name: x.name(d.seat), move: describeMove(d.move) }),
  match_scoring: () => t("log.match_scoring"),
  match_finished: (d, x) => `${t("log.match_finished")} ${x.winners(d.winners)}`,
  match_aborted: () => t("log.match_aborted"),
  timeout: (d, x) => t(`log.timeout_${d.action === "forfeit" ? "forfeit" : d.action === "bot" ? "bot" : "default"}`,
    { name: x.name(d.seat) }),
  forfeit: (d, x) => t("log.forfeit", { name: x.name(d.seat) }),
  away: (d, x) => t("log.away", { name: x.name(d.seat), bot: botName(d.bot) }),
  back: (d, x) => t("log.back", { name: x.name(d.seat) }),
  rematch: () => t("log.rematch"),
};

/** A sentence for an event the page has no words for: its type and data, readably. */
export function fallback(event, x) {
  const parts = Object.entries(event.data || {}).map(([k, v]) => {
    if (k === "seat" && typeof v === "number") return x.name(v);
    if (typeof v === "object") return `${words(k)}: ${JSON.stringify(v)}`;
    return `${words(k)} ${typeof v === "number" ? num(v) : v}`;
  });
  return `${words(event.type)}${parts.length ? ": " + parts.join(", ") : ""}.`;
}
