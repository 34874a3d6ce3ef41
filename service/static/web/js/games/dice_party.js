// Dice Party: every party as dice by type, the current roll with its pips, supplies and wallets.

import { h } from "../dom.js";

const KINDS = [["party_people", "Party People", "P"], ["vips", "VIPs", "V"], ["mobs", "Mobs", "M"]];
const FACES = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
const die = (pips, kind) => h("span", { class: "die", "aria-label": `${kind} showing ${pips}`, title: `${kind} ${pips}` },
  FACES[pips] ?? pips);

function roll(ctx, v) {
  if (!v.roll) return null;
  const g = v.growth;
  return h("div", { class: "panel", "aria-label": "The roll" },
    h("div", { class: "label" }, `Round ${v.round} · ${ctx.name(v.turn)} rolled${v.phase ? ` · now: ${v.phase.replaceAll("_", " ")}` : ""}`),
    KINDS.map(([key, label, letter]) => h("div", {}, h("strong", {}, `${letter} ${label}: `),
      v.roll[key].length ? v.roll[key].map((p) => die(p, label)) : h("span", { class: "small" }, "none"),
      v.roll[key].length ? h("span", { class: "small" }, ` (${v.roll[key].join(", ")})`) : null)),
    v.mobs_to_send ? h("div", {}, `${v.mobs_to_send} Mobs to send: choose a party below.`) : null,
    h("div", { class: "controls" },
      ctx.movesOf("steal").map((m) => ctx.control(m, "Rob wallets (Party People showing 6)")),
      ctx.movesOf("provoke").map((m) => ctx.control(m, "Provoke VIPs (4+)")),
      ctx.movesOf("grow").map((m) => ctx.control(m, g
        ? `Grow: option ${m.option} (${g[m.option].joined} ${g[m.option].kind.replaceAll("_", " ")} join)`
        : `Grow: option ${m.option}`))));
}

function parties(ctx, v) {
  const send = ctx.movesOf("send_mobs");
  return h("div", { class: "dp-parties" }, v.parties.map((party, seat) => h("div",
    { class: `panel${seat === ctx.seat ? " you" : ""}`, "aria-label": `${ctx.name(seat)}'s party` },
    h("h3", {}, ctx.name(seat), seat === v.turn ? " ▶" : "", v.out[seat] ? " (out)" : ""),
    KINDS.map(([key, label, letter]) => h("div", { class: "tally" }, h("span", {}, `${letter} ${label}`),
      h("strong", {}, `${party[key]} `, h("span", { class: "small" }, `(supply ${v.supplies[seat][key]})`)))),
    h("div", { class: "small" }, `wallets ${v.wallets[seat]} · escalations ${v.escalations[seat]} · `
      + `rounds won ${v.standings[seat].round_wins}`),
    send.filter((m) => m.opponent === seat).map((m) => ctx.control(m, `Send Mobs to ${ctx.name(seat)}`)))));
}

export function render(ctx) {
  const v = ctx.view;
  return [roll(ctx, v), parties(ctx, v),
    v.results.length ? h("div", { class: "small" }, "Rounds: ", v.results.map((r) =>
      `round ${r.round} to ${ctx.names(r.winners)} (${r.condition})`).join("; ")) : null];
}

export const SENTENCES = {
  round_started: (d, t) => `Round ${d.round} begins; ${t.name(d.starter)} starts.`,
  rolled: (d, t) => `${t.name(d.seat)} rolled ` + KINDS.map(([k, label]) => `${label} ${d.roll[k].join(", ") || "none"}`).join("; ") + ".",
  stole: (d, t) => (d.count ? `${t.name(d.seat)} robbed ${d.count} wallet${d.count > 1 ? "s" : ""}.` : `${t.name(d.seat)} robbed no wallet.`),
  provoked: (d, t) => `${t.name(d.seat)} provoked ${d.count} VIP${d.count === 1 ? "" : "s"}.`,
  mobs_sent: (d, t) => `${t.name(d.seat)} sent ${d.count} Mob${d.count === 1 ? "" : "s"} to ${t.name(d.opponent)}.`,
  grew: (d, t) => `${t.name(d.seat)}'s party grew: ${d.joined} ${d.kind.replaceAll("_", " ")} joined`
    + (d.mobs ? `, and ${d.mobs} Mobs came along.` : "."),
  no_growth: (d, t) => `${t.name(d.seat)}'s party did not grow.`,
  escalated: (d, t) => `${t.name(d.seat)}'s party escalated (${d.mob_pips} Mob pips against ${d.guest_pips}).`,
  millionaire: (d, t) => `${t.name(d.seat)} is a millionaire.`,
  millionaire_again: (d, t) => `${t.name(d.seat)} is a millionaire again.`,
  player_out: (d, t) => `${t.name(d.seat)} is out after ${d.escalations} escalations.`,
  turn_skipped: (d, t) => `${t.name(d.seat)}'s turn is skipped: the party is empty.`,
  stalemate: (d, t) => `Stalemate between ${t.names(d.seats)}.`,
  round_won: (d, t) => `Round ${d.round} won by ${t.names(d.winners)} (${d.condition}).`,
  game_over: (d, t) => `Game over: ${t.names(d.winners)} won.`,
};
