// Dice Party: every party as dice by type, the current roll with its pips, supplies and wallets.
// Its terms are the German rulebook's (Partylöwe, Party People, Mobs, Eskalation).

import { h } from "/static/web/js/dom.js";
import { t } from "/static/web/js/i18n.js";

const KINDS = [["party_people", "P"], ["vips", "V"], ["mobs", "M"]];
const FACES = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
const kind = (key) => t(`dp.kind.${key}`);
/** So many guests of a kind, the noun agreeing with the number ("1 VIP", "3 Mobs", "no VIPs"). */
const count = (key, n) => t(`dp.count.${key}`, { n });
const die = (pips, key) => h("span", { class: "die", role: "img", "aria-label": t("dp.dieShowing", { kind: kind(key), pips }),
  title: `${kind(key)} ${pips}` }, FACES[pips] ?? pips);
const condition = (c) => (c ? t(`dp.cond.${c}`) : t("dp.cond.none"));

/** The decision with a number (rob wallets, provoke VIPs): choose how many, or skip it with one click. */
function decide(ctx, type, what) {
  return ctx.movesOf(type).flatMap((m) => {
    ctx.claim([m]);
    const most = m.count.max;
    const controls = [];
    if (most > 0) {
      const control = ctx.control(m, t(`dp.${type}.do`, { max: most }), { title: t(`dp.${type}.what`) });
      const field = control.querySelector("input");
      if (field) field.value = most; // choosing to do it: all by default, fewer by typing
      controls.push(control);
    }
    if (m.count.min === 0) {
      controls.push(ctx.control({ ...m, count: 0 }, t(`dp.${type}.skip`), { class: "move skip", "data-skip": type }));
    }
    return [h("p", { class: "small" }, what), ...controls];
  });
}

function roll(ctx, v) {
  if (!v.roll) return null;
  const g = v.growth;
  return h("div", { class: "panel", "aria-label": t("dp.theRoll") },
    h("div", { class: "label" }, t("dp.rolled", { round: v.round, name: ctx.name(v.turn) }),
      v.phase ? ` · ${ctx.phase(v.phase)}` : ""),
    KINDS.map(([key, letter]) => h("div", {}, h("strong", {}, `${letter} ${kind(key)}: `),
      v.roll[key].length ? v.roll[key].map((p) => die(p, key)) : h("span", { class: "small" }, t("dp.none")),
      v.roll[key].length ? h("span", { class: "small" }, ` (${v.roll[key].join(", ")})`) : null)),
    v.mobs_to_send ? h("div", {}, t("dp.mobsToSend", { n: v.mobs_to_send })) : null,
    h("div", { class: "controls" },
      decide(ctx, "steal", t("dp.steal.what")),
      decide(ctx, "provoke", t("dp.provoke.what")),
      ctx.movesOf("grow").map((m) => ctx.control(m, g
        ? t("dp.grow", { option: m.option, n: g[m.option].joined, who: count(g[m.option].kind, g[m.option].joined) })
        : t("dp.growOption", { option: m.option })))));
}

function parties(ctx, v) {
  const send = ctx.movesOf("send_mobs");
  return h("div", { class: "dp-parties" }, v.parties.map((party, seat) => h("div",
    { class: `panel${seat === ctx.seat ? " you" : ""}`, "aria-label": t("dp.partyOf", { name: ctx.name(seat) }) },
    h("h3", {}, ctx.name(seat), seat === v.turn ? " ▶" : "", v.out[seat] ? ` (${t("dp.out")})` : ""),
    KINDS.map(([key, letter]) => h("div", { class: "tally" }, h("span", {}, `${letter} ${kind(key)}`),
      h("strong", {}, `${party[key]} `, h("span", { class: "small" }, t("dp.supply", { n: v.supplies[seat][key] }))))),
    h("div", { class: "small" }, t("dp.standing", { wallets: v.wallets[seat], esc: v.escalations[seat],
      wins: v.standings[seat].round_wins })),
    v.standings[seat].conditions?.length ? h("div", { class: "small" }, t("dp.conditionsWon",
      { list: v.standings[seat].conditions.map(condition).join(", ") })) : null,
    send.filter((m) => m.opponent === seat).map((m) => ctx.control(m, t("dp.sendTo", { name: ctx.name(seat) }))))));
}

export function render(ctx) {
  const v = ctx.view;
  return [roll(ctx, v), parties(ctx, v),
    v.results.length ? h("div", { class: "small" }, t("dp.rounds"), " ", v.results.map((r) =>
      t("dp.roundTo", { round: r.round, names: ctx.names(r.winners), cond: condition(r.condition) })).join("; ")) : null];
}

const rollWords = (roll) => KINDS.map(([k]) => `${kind(k)} ${roll[k].join(", ") || t("dp.none")}`).join("; ");

export const SENTENCES = {
  round_started: (d, x) => t("dp.log.round_started", { round: d.round, name: x.name(d.starter) }),
  rolled: (d, x) => t("dp.log.rolled", { name: x.name(d.seat), roll: rollWords(d.roll) }),
  stole: (d, x) => (d.count ? t("dp.log.stole", { name: x.name(d.seat), n: d.count }) : t("dp.log.stole_none", { name: x.name(d.seat) })),
  provoked: (d, x) => (d.count ? t("dp.log.provoked", { name: x.name(d.seat), n: d.count })
    : t("dp.log.provoked_none", { name: x.name(d.seat) })),
  mobs_sent: (d, x) => t("dp.log.mobs_sent", { name: x.name(d.seat), n: d.count, to: x.name(d.opponent) }),
  grew: (d, x) => (d.joined ? t(d.mobs ? "dp.log.grew_mobs" : "dp.log.grew",
    { name: x.name(d.seat), n: d.joined, who: count(d.kind, d.joined), mobs: d.mobs })
    : t("dp.log.no_growth", { name: x.name(d.seat) })),
  no_growth: (d, x) => t("dp.log.no_growth", { name: x.name(d.seat) }),
  escalated: (d, x) => t("dp.log.escalated", { name: x.name(d.seat), mob: d.mob_pips, guest: d.guest_pips }),
  millionaire: (d, x) => t("dp.log.millionaire", { name: x.name(d.seat) }),
  millionaire_again: (d, x) => t("dp.log.millionaire_again", { name: x.name(d.seat) }),
  player_out: (d, x) => t("dp.log.player_out", { name: x.name(d.seat), n: d.escalations }),
  turn_skipped: (d, x) => t("dp.log.turn_skipped", { name: x.name(d.seat) }),
  stalemate: (d, x) => t("dp.log.stalemate", { names: x.names(d.seats) }),
  round_won: (d, x) => t("dp.log.round_won", { round: d.round, names: x.names(d.winners), cond: condition(d.condition) }),
  game_over: (d, x) => t("dp.log.game_over", { names: x.names(d.winners) }),
};

/** The result in words: how the round (or the Partylöwe title) was won, and what each party was left with. */
export function breakdown(b) {
  if ("conditions" in b) { // the full game
    return [b.crowned ? t("dp.bd.crowned") : null,
      t("dp.bd.conditions", { list: b.conditions.length ? b.conditions.map(condition).join(", ") : t("dp.none") }),
      t("dp.bd.roundWins", { n: b.round_wins }), t("dp.bd.escalations", { n: b.escalations }),
      b.out ? t("dp.bd.out") : null].filter(Boolean).join(" · ");
  }
  return [b.won ? t("dp.bd.won", { cond: condition(b.condition) }) : t("dp.bd.lost"),
    b.escalated ? t("dp.bd.escalated") : null,
    t("dp.bd.wallets", { n: b.wallets }),
    t("dp.bd.party", { p: b.party.party_people, v: b.party.vips, m: b.party.mobs })].filter(Boolean).join(" · ");
}

const WALLETS_TO_WIN = 6;

/**
 * What a move does, before it is chosen (Brieftaschen klauen, Gäste provozieren, Die Party wächst):
 * what robbing and provoking cost your party and bring, what growing brings (and the Mobs that come
 * along), and how many Mobs a rival's party gets.
 */
export function preview(move, ctx) {
  const v = ctx.view;
  const me = ctx.seat;
  if (move.type === "steal") {
    if (!move.count) return t("dp.pv.stealSkip", { n: v.parties[me].party_people });
    const wallets = v.wallets[me] + move.count;
    return [t("dp.pv.steal", { n: move.count, wallets }),
      v.wallets[me] === 0 ? t("dp.pv.counter") : null,
      wallets >= WALLETS_TO_WIN ? t("dp.pv.stealWins") : t("dp.pv.stealLeft", { n: WALLETS_TO_WIN - wallets })]
      .filter(Boolean).join(" ");
  }
  if (move.type === "provoke") {
    if (!move.count) return t("dp.pv.provokeSkip");
    const rivals = v.parties.map((p, s) => s).filter((s) => s !== me && v.in_round[s] && !v.out[s]);
    const waves = rivals.map((s, i) => move.count - i).filter((n) => n > 0);
    return t("dp.pv.provoke", { n: move.count, left: v.parties[me].vips - move.count,
      waves: waves.join(", ") || "0" });
  }
  if (move.type === "send_mobs") {
    const party = v.parties[move.opponent];
    return t("dp.pv.send", { n: v.mobs_to_send, name: ctx.name(move.opponent), mobs: party.mobs + v.mobs_to_send,
      guests: party.party_people + party.vips }) + (v.mobs_to_send > 1 ? ` ${t("dp.pv.sendNext", { n: v.mobs_to_send - 1 })}` : "");
  }
  if (move.type === "grow") {
    const g = v.growth?.[move.option];
    if (!g) return null;
    const pips = v.roll[move.option === "a" ? "party_people" : "vips"].reduce((a, b) => a + b, 0);
    return [t(`dp.pv.grow.${move.option}`, { pips }), t("dp.pv.joined", { n: g.joined, kind: kind(g.kind) }),
      g.mobs ? t("dp.pv.growMobs", { n: g.mobs }) : null].filter(Boolean).join(" ");
  }
  return null;
}
