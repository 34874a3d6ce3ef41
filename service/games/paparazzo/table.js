// Paparazzo: the Skandalchronik with its markers, the three face-up photos, your hand, what your
// neighbour showed you, and the offers going round.

import { h, num } from "/static/web/js/dom.js";
import { has, t } from "/static/web/js/i18n.js";
import { moveKey } from "/static/web/js/moves.js";

const celebName = (letter, celebs) => (has(`pz.celeb.${letter}`) ? t(`pz.celeb.${letter}`) : celebs?.[letter]?.name ?? "");

const chosen = new Set(); // cards picked to show, kept across redraws until shown

const cardLabel = (c, celebs) => `${c.celebrity} · ${celebName(c.celebrity, celebs)}`;

function photo(c, celebs, attrs = {}) {
  return h("span", { class: "card", ...attrs }, h("strong", {}, `▣ ${c.celebrity}`),
    h("span", { class: "small" }, celebName(c.celebrity, celebs)));
}

function chronicle(ctx, v) {
  const sell = ctx.movesOf("sell_to_stunk");
  return h("div", { class: "panel", "aria-label": t("pz.chronicle") }, h("div", { class: "label" }, t("pz.chronicleLabel")),
    h("table", {}, h("tr", {}, h("th", {}, t("pz.celebrity")), h("th", {}, t("pz.published")), h("th", {}, t("pz.worth")), h("th", {}, t("pz.notes"))),
      v.celebrities.map((c) => h("tr", {},
        h("th", { scope: "row" }, `${c.celebrity} `, h("span", { class: "small" }, celebName(c.celebrity))),
        h("td", {}, h("span", { role: "img", "aria-label": t("pz.photos", { n: c.photos }) },
          "●".repeat(c.photos) + "○".repeat(Math.max(0, 5 - c.photos)))),
        h("td", {}, num(c.value)),
        h("td", {}, !c.in_play ? t("pz.removed") : c.ex ? t("pz.ex") : "", c.sold_to_stunk ? ` ${t("pz.soldToStunk")}` : "",
          sell.filter((m) => m.celebrity === c.celebrity).map((m) => ctx.control(m, t("pz.sell", { c: c.celebrity }),
            { title: t("pz.sellWhat", { value: num(c.value) }) })))))));
}

function market(ctx, v, celebs) {
  return h("div", { class: "panel", "aria-label": t("pz.market") }, h("div", { class: "label" }, t("pz.faceUp")),
    h("div", { class: "row" }, v.market.map((c, slot) => {
      const select = ctx.movesOf("select", (m) => m.slot === slot)[0];
      if (!c) return h("span", { class: "card" }, t("pz.slotEmpty", { n: slot + 1 }));
      if (select) {
        return ctx.control(select, [h("strong", {}, `▣ ${c.celebrity}`), h("span", { class: "small" }, t("pz.offerSlot", { n: slot + 1 }))],
          { class: "card", title: cardLabel(c, celebs) });
      }
      return photo(c, celebs, { title: t("pz.slot", { n: slot + 1 }) });
    })));
}

function lot(ctx, v, celebs) {
  const l = v.lot;
  if (!l) return null;
  const offers = l.offers.map((o) => h("li", {}, `${ctx.name(o.seat)}: `, o.amount === null ? t("pz.passed") : num(o.amount)));
  return h("div", { class: "panel", "aria-label": t("pz.onOfferPanel") },
    h("div", { class: "label" }, t("pz.onOffer", { n: l.slot + 1, name: ctx.name(v.mediator) })),
    h("div", { class: "row" }, l.card ? photo(l.card, celebs) : null,
      h("div", {}, h("div", {}, t("pz.minimum", { n: num(l.minimum) }), l.high !== null ? ` · ${t("pz.highOffer", { n: num(l.high), name: ctx.name(l.high_seat) })}` : ""),
        offers.length ? h("ul", {}, offers) : h("div", { class: "small" }, t("pz.noOffers")),
        l.declined.length ? h("div", { class: "small" }, t("pz.declinedBy", { names: ctx.names(l.declined) })) : null)),
    h("div", { class: "controls" },
      ctx.movesOf("offer").map((m) => ctx.control(m, t("pz.offer"), { title: t("pz.offerWhat") })),
      ctx.movesOf("pass").map((m) => ctx.control(m, t("pz.pass"))),
      ctx.movesOf("buy").map((m) => ctx.control(m, t("pz.buyAt", { n: num(l.high ?? l.minimum) }))),
      ctx.movesOf("decline").map((m) => ctx.control(m, t("pz.decline")))));
}

function hand(ctx, v, celebs) {
  const show = ctx.movesOf("show");
  const place = ctx.movesOf("place");
  ctx.claim(show);
  const need = show[0]?.cards.length ?? 0;
  const cards = (v.hand || []).map((c) => {
    const placing = place.find((m) => m.card === c.id);
    if (placing) {
      return ctx.control(placing, [h("strong", {}, `▣ ${c.celebrity}`), h("span", { class: "small" }, t("pz.placeIt"))],
        { class: "card", title: cardLabel(c, celebs) });
    }
    if (!show.length) return photo(c, celebs);
    const button = h("button", { type: "button", class: "card", "aria-pressed": String(chosen.has(c.id)),
      title: t("pz.chooseToShow"), "data-card": c.id, "data-preview": t("pz.pv.choose", { c: c.celebrity, need }) },
    h("strong", {}, `▣ ${c.celebrity}`), h("span", { class: "small" }, celebName(c.celebrity, celebs)));
    button.addEventListener("click", () => {
      if (!chosen.has(c.id) && chosen.size >= need) return; // as many as the rules ask, never more
      chosen.has(c.id) ? chosen.delete(c.id) : chosen.add(c.id);
      button.setAttribute("aria-pressed", String(chosen.has(c.id)));
      const match = show.find((m) => m.cards.length === chosen.size && m.cards.every((id) => chosen.has(id)));
      showButton.replaceWith(showButton = showControl(match));
    });
    return button;
  });
  const showControl = (move) => {
    if (move) return ctx.control(move, t("pz.show"));
    return h("button", { type: "button", disabled: true }, t("pz.chooseN", { need, n: chosen.size }));
  };
  let showButton = show.length ? showControl(show.find((m) => moveKey([...m.cards].sort()) === moveKey([...chosen].sort()))) : null;
  if (!show.length) chosen.clear();
  return h("div", { class: "panel you mine-first", "aria-label": t("pz.yourHand") },
    h("div", { class: "label" }, t("pz.handCash", { cash: num(v.cash[ctx.seat]) })),
    h("div", { class: "row" }, cards.length ? cards : h("span", { class: "small" }, t("pz.noCards"))), showButton);
}

function seats(ctx, v, celebs) {
  return h("div", { class: "row" }, v.owned.map((owned, seat) => h("div",
    { class: `panel${seat === ctx.seat ? " you" : ""}`, "aria-label": t("pz.tableOf", { name: ctx.name(seat) }) },
    h("h3", {}, ctx.name(seat), v.to_act.includes(seat) ? " ▶" : "", seat === v.mediator ? ` (${t("pz.mediator")})` : ""),
    h("div", { class: "small" }, t("pz.seatLine", { cash: v.cash[seat] === null ? t("pz.hidden") : num(v.cash[seat]),
      n: v.hand_sizes[seat], penalties: num(v.penalties[seat]), total: num(v.totals[seat]) })),
    h("div", { class: "row" }, owned.map((c) => photo(c, celebs))))));
}

export function render(ctx) {
  const v = ctx.view;
  const celebs = Object.fromEntries(v.celebrities.map((c) => [c.celebrity, c]));
  const seen = v.seen && h("div", { class: "panel", "aria-label": t("pz.seenPanel") },
    h("div", { class: "label" }, t("pz.showedYou", { name: ctx.name(v.seen.seat) })),
    h("div", { class: "row" }, v.seen.cards.map((c) => photo(c, celebs))));
  const shown = v.shown?.length ? h("div", { class: "small" }, t("pz.youShowed", { list: v.shown.map((c) => c.celebrity).join(", ") })) : null;
  return [
    h("div", { class: "small" }, t("pz.handLine", { no: v.hand_no, count: v.hand_count, phase: ctx.phase(v.phase), deck: v.deck_size })),
    h("div", { class: "row" }, market(ctx, v, celebs), lot(ctx, v, celebs)),
    ctx.seat !== null ? hand(ctx, v, celebs) : null, seen, shown,
    chronicle(ctx, v),
    seats(ctx, v, celebs),
  ];
}

const photoWords = (c) => t("pz.photoOf", { c: c.celebrity });
const scoresOf = (list, x) => list.map((v, s) => `${x.name(s)} ${num(v)}`).join(", ");

export const SENTENCES = {
  hand_started: (d, x) => t("pz.log.hand_started", { hand: d.hand, name: x.name(d.starter) }),
  dealt: (d) => t("pz.log.dealt", { list: d.cards.map((c) => c.celebrity).join(", ") }),
  rumors_chosen: (d, x) => t("pz.log.rumors_chosen", { name: x.name(d.seat) }),
  rumors: (d, x) => t("pz.log.rumors", { name: x.name(d.seat), list: d.cards.map((c) => c.celebrity).join(", ") }),
  selected: (d, x) => t("pz.log.selected", { name: x.name(d.seat), photo: photoWords(d.card), n: d.slot + 1, min: num(d.minimum) }),
  offered: (d, x) => t("pz.log.offered", { name: x.name(d.seat), amount: num(d.amount) }),
  passed: (d, x) => t("pz.log.passed", { name: x.name(d.seat) }),
  price_set: (d, x) => t("pz.log.price_set", { price: num(d.price), name: x.name(d.seat) }),
  declined: (d, x) => t("pz.log.declined", { name: x.name(d.seat) }),
  bought: (d, x) => t(d.forced ? "pz.log.bought_forced" : "pz.log.bought", { name: x.name(d.seat), photo: photoWords(d.card), price: num(d.price) }),
  commission: (d, x) => t("pz.log.commission", { name: x.name(d.seat), amount: num(d.amount) }),
  placed: (d, x) => t("pz.log.placed", { name: x.name(d.seat), photo: photoWords(d.card), n: d.slot + 1,
    c: d.celebrity ?? d.card.celebrity, value: num(d.value) }),
  penalty: (d, x) => t("pz.log.penalty", { name: x.name(d.seat), amount: num(d.amount), total: num(d.total) }),
  taken_free: (d, x) => t("pz.log.taken_free", { name: x.name(d.seat), photo: photoWords(d.card) }),
  sold_to_stunk: (d, x) => t("pz.log.sold_to_stunk", { name: x.name(d.seat), photo: photoWords(d.card), value: num(d.value) }),
  slot_left_empty: (d, x) => t("pz.log.slot_left_empty", { name: x.name(d.seat), n: d.slot + 1 }),
  careers_ruined: (d) => t("pz.log.careers_ruined", { list: d.celebrities.join(", ") }),
  hand_scored: (d, x) => t("pz.log.hand_scored", { hand: d.hand, scores: scoresOf(d.result.map((r) => r.worth), x) }),
  game_over: (d, x) => t("log.game_over", { scores: scoresOf(d.scores, x) }),
};

/** The Reckoning in words: per hand, cash + photos + bonus − penalties = worth. */
export function breakdown(b) {
  const hands = b.hands.map((r, i) => t("pz.bd.hand", { no: i + 1, cash: num(r.cash), photos: num(r.photo_value),
    list: Object.entries(r.photos).map(([c, n]) => `${c}×${n}`).join(" ") || t("pz.bd.none"),
    bonus: num(r.bonus), penalties: num(r.penalties), worth: num(r.worth) }));
  return hands.length > 1 ? `${hands.join("; ")}; ${t("pz.bd.total", { total: num(b.total) })}` : hands.join("");
}

const VALUES = [0, 1000, 3000, 6000, 10000, 15000, 21000, 28000, 36000]; // the Skandalchronik's steps
const PENALTY = 5000;

/**
 * What a move does, before it is chosen (Phases 1 to 4, Sell a Photo to Stink Magazine): the photo
 * offered and its minimum, what an offer commits you to, what buying costs and whom it pays, and how
 * a new photo moves its celebrity on the Skandalchronik.
 */
export function preview(move, ctx) {
  const v = ctx.view;
  const celeb = (letter) => v.celebrities.find((c) => c.celebrity === letter);
  const l = v.lot;
  if (move.type === "select") {
    const card = v.market[move.slot];
    const c = celeb(card.celebrity);
    return t("pz.pv.select", { c: card.celebrity, n: move.slot + 1, min: num(c.photos * 1000), value: num(c.value) });
  }
  if (move.type === "sell_to_stunk") return t("pz.pv.sell", { c: move.celebrity, value: num(celeb(move.celebrity).value) });
  if (move.type === "offer") {
    return t("pz.pv.offer", { amount: num(move.amount), c: l.card.celebrity, name: ctx.name(v.mediator),
      penalty: num(PENALTY), cash: num(v.cash[ctx.seat]) });
  }
  if (move.type === "pass") return t("pz.pv.pass", { high: l.high === null ? t("pz.pv.noHigh") : num(l.high) });
  if (move.type === "buy") {
    const price = l.high ?? l.minimum;
    return t("pz.pv.buy", { c: l.card.celebrity, price: num(price), cash: num(v.cash[ctx.seat] - price) }) + " "
      + (ctx.seat === v.mediator ? t("pz.pv.buyMediator") : t("pz.pv.commission", { name: ctx.name(v.mediator), half: num(Math.floor(price / 2)) }));
  }
  if (move.type === "decline") {
    const lastToDecide = (l.turn + 1) % v.owned.length === v.mediator;
    const who = l.high_seat === ctx.seat ? t("pz.pv.you") : ctx.name(l.high_seat);
    return lastToDecide ? t("pz.pv.declineLast", { name: who, high: num(l.high), penalty: num(PENALTY) })
      : t("pz.pv.decline", { name: who, high: num(l.high) });
  }
  if (move.type === "place") {
    const card = (v.hand || []).find((c) => c.id === move.card);
    const c = celeb(card.celebrity);
    const owned = v.owned[ctx.seat].filter((x) => x.celebrity === card.celebrity).length;
    return t("pz.pv.place", { c: card.celebrity, n: l.slot + 1, from: c.photos, to: c.photos + 1,
      value: num(VALUES[c.photos] ?? 0), next: num(VALUES[c.photos + 1] ?? VALUES.at(-1)), owned });
  }
  if (move.type === "show") {
    return t("pz.pv.show", { list: move.cards.map((id) => (v.hand || []).find((c) => c.id === id)?.celebrity).join(", ") });
  }
  return null;
}
