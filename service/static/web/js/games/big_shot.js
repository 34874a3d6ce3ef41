// Big Shot: the 13 lots, the ring of 18 auction spaces with the broker, the cubes, money and debits.

import { h, num } from "../dom.js";

const LETTER = { red: "R", yellow: "Y", white: "W", black: "B" };
const cube = (color, n = 1) => h("span", { class: `cube c-${color}`, title: color, "aria-label": `${n} ${color}` },
  n > 1 ? `${LETTER[color]}×${n}` : LETTER[color]);

function lots(ctx, v) {
  const place = ctx.movesOf("place");
  return h("div", { class: "panel", "aria-label": "The 13 lots" }, h("div", { class: "label" }, "Lots"),
    h("div", { class: "bs-lots" }, v.lots.map((lot) => h("div", { class: "panel bs-lot", "data-lot": lot.lot },
      h("strong", {}, lot.lot), lot.park ? h("span", { class: "small" }, ` next to park ${lot.park}`) : null,
      h("div", { class: "small" }, lot.value ? `value ${lot.value}` : "park", lot.closed ? " · closed" : "",
        lot.owner ? ` · owner ${lot.owner}` : ""),
      h("div", {}, Object.entries(lot.cubes).map(([c, n]) => cube(c, n))),
      place.filter((m) => m.lot === lot.lot).map((m) => ctx.control(m, `Place ${LETTER[m.color]} here`,
        { "aria-label": `Place a ${m.color} cube on ${lot.lot}` }))))));
}

function ring(v) {
  return h("div", { class: "panel", "aria-label": "The 18 auction spaces" },
    h("div", { class: "label" }, `Auction ring · die ${v.die ?? "–"} · broker on space ${v.broker + 1}`),
    h("div", { class: "bs-ring" }, v.spaces.map((cubes, i) => h("div", {
      class: `bs-space${i === v.broker ? " broker" : ""}${v.auction && i === v.auction.space ? " auction" : ""}`,
    }, h("div", {}, `${i + 1}`, i === v.broker ? " ◆ broker" : ""),
    cubes.length ? cubes.map((c) => cube(c)) : h("span", { class: "small" }, "empty")))));
}

function auction(ctx, v) {
  const a = v.auction;
  return h("div", { class: "panel", "aria-label": "The auction" },
    h("div", { class: "label" }, `Round ${v.round} of ${v.rounds} · ${v.phase}`),
    a ? h("div", {}, "On auction: ", a.cubes.map((c) => cube(c)),
      h("div", {}, a.high_bidder !== null ? `high bid ${a.high_bid} by ${ctx.name(a.high_bidder)}` : "no bid yet"),
      a.passed.length ? h("div", { class: "small" }, `passed: ${ctx.names(a.passed)}`) : null) : null,
    v.buyer !== null && v.buyer !== undefined ? h("div", {}, `${ctx.name(v.buyer)} bought for ${v.price}; to place: `,
      v.hand.map((c) => cube(c))) : null,
    h("div", { class: "controls" },
      ctx.movesOf("bid").map((m) => ctx.control(m, "Bid (millions)")),
      ctx.movesOf("pass").map((m) => ctx.control(m, "Pass")),
      ctx.movesOf("decline").map((m) => ctx.control(m, "No more loans"))));
}

function accounts(ctx, v) {
  const loan = ctx.movesOf("loan");
  const pay = ctx.movesOf("pay");
  return h("div", { class: "row", "aria-label": "Money and debits" }, v.seats.map((s) => h("div",
    { class: `panel${s.seat === ctx.seat ? " you" : ""}` },
    h("h3", {}, ctx.name(s.seat), s.seat === v.turn ? " ▶" : ""),
    v.accounts.filter((a) => a.seat === s.seat).map((a) => h("div", {}, cube(a.color), ` cash ${a.cash ?? "hidden"}`,
      ` · debits ${a.debits}`, a.loaned_this_round ? " · loaned" : "",
      loan.filter((m) => m.color === a.color).map((m) => ctx.control(m, `Loan on ${a.color}`)),
      pay.filter((m) => m.color === a.color).map((m) => ctx.control(m, `Pay from ${a.color}`))))))
  , v.ghost ? h("div", { class: "panel" }, h("h3", {}, "Ghost"), cube(v.ghost)) : null);
}

export function render(ctx) {
  const v = ctx.view;
  return [h("div", { class: "row" }, auction(ctx, v)), lots(ctx, v), ring(v), accounts(ctx, v)];
}

export const SENTENCES = {
  round_started: (d, t) => `Round ${d.round}: ${t.name(d.roller)} rolled ${d.die}; the broker moves to space ${d.space + 1}.`,
  loan: (d, t) => `${t.name(d.seat)} took a loan on ${d.color} and received ${d.received}.`,
  loans_done: (d, t) => `${t.name(d.seat)} takes no more loans.`,
  bid: (d, t) => `${t.name(d.seat)} bid ${d.amount}.`,
  passed: (d, t) => `${t.name(d.seat)} passed.`,
  auction_won: (d, t) => `${t.name(d.seat)} won the auction for ${d.price}.`,
  paid: (d, t) => `${t.name(d.seat)} paid ${d.amount} from ${d.color}.`,
  placed: (d, t) => `${t.name(d.seat)} placed a ${d.color} cube on ${d.lot}.`,
  cubes_removed: (d) => `Cubes removed: ${d.cubes.join(", ")}.`,
  lot_sold: (d, t) => `${d.lot} goes to ${d.color}${d.seat !== null ? ` (${t.name(d.seat)})` : ""}.`,
  lot_void: (d) => `${d.lot} is void: no colour leads.`,
  game_over: (d, t) => `Game over: ${d.scores.map((s, seat) => `${t.name(seat)} ${num(s)}`).join(", ")}.`,
};
