// The event log as sentences.  Each game module adds its own event types; these are the referee's.

import { describeMove } from "./moves.js";
import { num, words } from "./dom.js";

export const COMMON = {
  match_created: (d) => `The match was created for ${d.players} players.`,
  seat_joined: (d, t) => `${t.name(d.seat)} took seat ${d.seat}.`,
  match_started: () => "Every seat is taken: the match begins.",
  moved: (d, t) => `${t.name(d.seat)} played ${describeMove(d.move)}.`,
  match_scoring: () => "The last move is made; the referee is counting.",
  match_finished: (d, t) => `The match is over. ${t.winners(d.winners)}`,
  match_aborted: () => "The host aborted the match.",
  timeout: (d, t) => `${t.name(d.seat)} ran out of time: ${d.action === "forfeit" ? "the seat is out" : d.action === "bot" ? "a bot plays for it" : "the referee played its default move"}.`,
  away: (d, t) => `${t.name(d.seat)} is away; the ${d.bot} bot plays for it.`,
  back: (d, t) => `${t.name(d.seat)} is back.`,
  rematch: () => "A rematch was created.",
};

/** A sentence for an event the page has no words for: its type and data, readably. */
export function fallback(event, t) {
  const parts = Object.entries(event.data || {}).map(([k, v]) => {
    if (k === "seat" && typeof v === "number") return t.name(v);
    if (typeof v === "object") return `${words(k)}: ${JSON.stringify(v)}`;
    return `${words(k)} ${typeof v === "number" ? num(v) : v}`;
  });
  return `${words(event.type)}${parts.length ? ": " + parts.join(", ") : ""}.`;
}
