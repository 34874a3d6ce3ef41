// Big Shot: the 13 lots, the ring of 18 auction spaces with the broker, the cubes, money and debits,
// and each seat's standing as the view gives it (its balance; hidden where the variant hides cash).

import { h, num } from "/static/web/js/dom.js";
import { t } from "/static/web/js/i18n.js";

const LETTER = { red: "R", yellow: "Y", white: "W", black: "B" };
const color = (c) => t(`bs.color.${c}`);
const cube = (c, n = 1) => h("span", { class: `cube c-${c}`, title: color(c), role: "img",
  "aria-label": t("bs.cubes", { n, color: color(c) }) }, n > 1 ? `${LETTER[c]}×${n}` : LETTER[c]);

function lots(ctx, v) {
  const place = ctx.movesOf("place");
  return h("div", { class: "panel", "aria-label": t("bs.theLots") }, h("div", { class: "label" }, t("bs.lots")),
    h("div", { class: "bs-lots" }, v.lots.map((lot) => h("div", { class: "panel bs-lot", "data-lot": lot.lot, "data-key": `lot-${lot.lot}` },
      h("strong", {}, lot.lot), lot.park ? h("span", { class: "small" }, ` ${t("bs.nextToPark", { park: lot.park })}`) : null,
      h("div", { class: "small" }, lot.value ? t("bs.value", { value: lot.value }) : t("bs.park"),
        lot.closed ? ` · ${t("bs.closed")}` : "", lot.owner ? ` · ${t("bs.owner", { color: color(lot.owner) })}` : ""),
      h("div", {}, Object.entries(lot.cubes).map(([c, n]) => cube(c, n))),
      place.filter((m) => m.lot === lot.lot).map((m) => {
        const text = t("bs.placeHere", { letter: LETTER[m.color] });
        return ctx.control(m, text, { "aria-label": `${text}: ${t("bs.placeOn", { color: color(m.color), lot: lot.lot })}` });
      })))));
}

function ring(v) {
  return h("div", { class: "panel", "aria-label": t("bs.theRing") },
    h("div", { class: "label" }, t("bs.ringLabel", { die: v.die ?? "–", space: v.broker + 1 })),
    h("div", { class: "bs-ring" }, v.spaces.map((cubes, i) => h("div", {
      class: `bs-space${i === v.broker ? " broker" : ""}${v.auction && i === v.auction.space ? " auction" : ""}`,
    }, h("div", {}, `${i + 1}`, i === v.broker ? ` ◆ ${t("bs.broker")}` : ""),
    cubes.length ? cubes.map((c) => cube(c)) : h("span", { class: "small" }, t("bs.empty"))))));
}

function auction(ctx, v) {
  const a = v.auction;
  return h("div", { class: "panel", "aria-label": t("bs.theAuction") },
    h("div", { class: "label" }, t("bs.round", { round: v.round, rounds: v.rounds }), ` · ${ctx.phase(v.phase)}`),
    a && v.phase !== "over" ? h("div", {}, `${t("bs.onAuction")} `, a.cubes.map((c) => cube(c)),
      h("div", {}, a.high_bidder !== null ? t("bs.highBid", { bid: a.high_bid, name: ctx.name(a.high_bidder) }) : t("bs.noBid")),
      a.passed.length ? h("div", { class: "small" }, t("bs.passed", { names: ctx.names(a.passed) })) : null) : null,
    v.buyer !== null && v.buyer !== undefined && v.phase !== "over" ? h("div", {}, t("bs.bought", { name: ctx.name(v.buyer), price: v.price }), " ",
      v.hand.map((c) => cube(c))) : null,
    h("div", { class: "controls" },
      ctx.movesOf("bid").map((m) => ctx.control(m, t("bs.bid"), { title: t("bs.bidWhat") })),
      ctx.movesOf("pass").map((m) => ctx.control(m, t("bs.pass"), { title: t("bs.passWhat") })),
      ctx.movesOf("decline").map((m) => ctx.control(m, t("bs.decline")))));
}

function account(ctx, v, s) {
  const loan = ctx.movesOf("loan");
  const pay = ctx.movesOf("pay");
  const balance = v.balances?.[s.seat];
  return h("div", { class: `panel${s.seat === ctx.seat ? " you" : ""}`, "aria-label": t("bs.accountOf", { name: ctx.name(s.seat) }),
    "data-key": `account-${s.seat}` },
  h("h3", {}, ctx.name(s.seat), s.seat === v.turn ? " ▶" : ""),
  v.accounts.filter((a) => a.seat === s.seat).map((a) => h("div", {}, cube(a.color),
    ` ${t("bs.cash", { cash: a.cash ?? t("bs.hidden") })} · ${t("bs.debits", { n: a.debits })}`,
    a.loaned_this_round ? ` · ${t("bs.loaned")}` : "",
    " ", loan.filter((m) => m.color === a.color).map((m) => ctx.control(m, t("bs.loanOn", { color: color(a.color) }),
      { title: t("bs.loanWhat") })),
    pay.filter((m) => m.color === a.color).map((m) => ctx.control(m, t("bs.payFrom", { color: color(a.color) }))))),
  h("div", { class: "standing", "data-standing": s.seat },
    balance === null || balance === undefined ? t("bs.balanceHidden") : t("bs.balance", { balance: num(balance) })));
}

export function render(ctx) {
  const v = ctx.view;
  const mine = v.seats.filter((s) => s.seat === ctx.seat);
  const others = v.seats.filter((s) => s.seat !== ctx.seat);
  return [
    h("div", { class: "row" }, auction(ctx, v), mine.map((s) => account(ctx, v, s))),
    lots(ctx, v), ring(v),
    h("div", { class: "row", "aria-label": t("bs.accounts") }, others.map((s) => account(ctx, v, s)),
      v.ghost ? h("div", { class: "panel" }, h("h3", {}, t("bs.ghost")), cube(v.ghost),
        h("p", { class: "small" }, t("bs.ghostWhat"))) : null),
  ];
}

export const SENTENCES = {
  round_started: (d, x) => t("bs.log.round_started", { round: d.round, name: x.name(d.roller), die: d.die, space: d.space + 1 }),
  loan: (d, x) => t("bs.log.loan", { name: x.name(d.seat), color: color(d.color), received: d.received }),
  loans_done: (d, x) => t("bs.log.loans_done", { name: x.name(d.seat) }),
  bid: (d, x) => t("bs.log.bid", { name: x.name(d.seat), amount: d.amount }),
  passed: (d, x) => t("bs.log.passed", { name: x.name(d.seat) }),
  auction_won: (d, x) => t("bs.log.auction_won", { name: x.name(d.seat), price: d.price }),
  paid: (d, x) => t("bs.log.paid", { name: x.name(d.seat), amount: d.amount, color: color(d.color) }),
  placed: (d, x) => t("bs.log.placed", { name: x.name(d.seat), color: color(d.color), lot: d.lot }),
  cubes_removed: (d) => t("bs.log.cubes_removed", { list: d.cubes.map(color).join(", ") }),
  lot_sold: (d, x) => t(d.seat !== null ? "bs.log.lot_sold_seat" : "bs.log.lot_sold",
    { lot: d.lot, color: color(d.color), name: d.seat !== null ? x.name(d.seat) : "" }),
  lot_void: (d) => t("bs.log.lot_void", { lot: d.lot }),
  game_over: (d, x) => t("log.game_over", { scores: d.scores.map((s, seat) => `${x.name(seat)} ${num(s)}`).join(", ") }),
};

/** The book's final reckoning: lot values plus cash minus 10 million per debit card. */
export function breakdown(b) {
  return t("bs.breakdown", { lots: b.lots.length ? b.lots.join(", ") : t("bs.noLots"), values: b.lot_values,
    cash: b.cash, debt: b.debt, balance: b.balance }) + (b.qualified ? "" : ` · ${t("bs.notQualified")}`);
}

const DEBIT = 10; // millions owed at the end per debit card
const MAX_ON_LOT = 7;
const COLORS = ["red", "yellow", "white", "black"];

/** Who takes a lot of these cubes (book: Acquiring Lots): the single most, else on a tie the single colour with one cube. */
function lotWinner(cubes) {
  const counts = COLORS.map((c) => cubes[c] || 0);
  const top = Math.max(...counts);
  const tops = COLORS.filter((c, i) => counts[i] === top);
  if (tops.length === 1) return tops[0];
  const ones = COLORS.filter((c, i) => counts[i] === 1);
  return ones.length === 1 ? ones[0] : null;
}

const cubeList = (cubes) => cubes.map(color).join(", ");

/**
 * What a move does, before it is chosen (the book's Loans, 2) Auction and entering cubes, Acquiring
 * Lots): the money a loan brings and the debit it costs, what a bid or a pass commits to, what paying
 * leaves, and how a lot then stands (the seventh cube closes it).
 */
export function preview(move, ctx) {
  const v = ctx.view;
  const mine = v.accounts.filter((a) => a.seat === ctx.seat);
  const account = (c) => v.accounts.find((a) => a.color === c);
  const cash = mine.reduce((sum, a) => sum + (a.cash ?? 0), 0);
  if (move.type === "loan") {
    const a = account(move.color);
    const received = Math.max(0, DEBIT - (mine.reduce((sum, x) => sum + x.debits, 0) + 1));
    return t("bs.pv.loan", { color: color(move.color), received, cash: a.cash, after: a.cash + received,
      n: a.debits + 1, change: received - DEBIT });
  }
  if (move.type === "decline") return t("bs.pv.decline");
  if (move.type === "bid") {
    const cubes = cubeList(v.auction?.cubes || []);
    return t("bs.pv.bid", { amount: move.amount, cubes, cash }) + (move.amount > cash ? ` ${t("bs.pv.bidAbove", { cash })}` : "");
  }
  if (move.type === "pass") return t("bs.pv.pass", { cubes: cubeList(v.auction?.cubes || []) });
  if (move.type === "pay") {
    const a = account(move.color);
    return t("bs.pv.pay", { price: v.price, color: color(move.color), cash: a.cash, after: a.cash - v.price });
  }
  if (move.type === "place") {
    const lot = v.lots.find((l) => l.lot === move.lot);
    const cubes = { ...lot.cubes, [move.color]: (lot.cubes[move.color] || 0) + 1 };
    const total = Object.values(cubes).reduce((a, b) => a + b, 0);
    const now = COLORS.filter((c) => cubes[c]).map((c) => t("bs.cubes", { n: cubes[c], color: color(c) })).join(", ");
    const worth = lot.value ? t("bs.value", { value: lot.value }) : t("bs.park");
    const head = t("bs.pv.place", { color: color(move.color), lot: lot.lot, worth, cubes: now, n: total });
    if (total >= MAX_ON_LOT) {
      const winner = lotWinner(cubes);
      return `${head} ${winner ? t("bs.pv.closes", { color: color(winner) }) : t("bs.pv.closesVoid")}`;
    }
    const leader = lotWinner(cubes);
    return `${head} ${leader ? t("bs.pv.leads", { color: color(leader), left: MAX_ON_LOT - total }) : t("bs.pv.tied", { left: MAX_ON_LOT - total })}`;
  }
  return null;
}
