// Paparazzo: the Skandalchronik with its markers, the three face-up photos, your hand, what your
// neighbour showed you, and the offers going round.

import { h, num } from "../dom.js";
import { moveKey } from "../moves.js";

const chosen = new Set(); // cards picked to show, kept across redraws until shown

const cardLabel = (c, celebs) => `${c.celebrity} · ${celebs[c.celebrity]?.name ?? ""}`;

function photo(c, celebs, attrs = {}) {
  return h("span", { class: "card", ...attrs }, h("strong", {}, `▣ ${c.celebrity}`),
    h("span", { class: "small" }, celebs[c.celebrity]?.name ?? ""));
}

function chronicle(ctx, v) {
  const sell = ctx.movesOf("sell_to_stunk");
  return h("div", { class: "panel", "aria-label": "The Skandalchronik" }, h("div", { class: "label" }, "Skandalchronik"),
    h("table", {}, h("tr", {}, h("th", {}, "celebrity"), h("th", {}, "photos published"), h("th", {}, "value"), h("th", {}, "")),
      v.celebrities.map((c) => h("tr", {},
        h("th", { scope: "row" }, `${c.celebrity} `, h("span", { class: "small" }, c.name)),
        h("td", { "aria-label": `${c.photos} photos` }, "●".repeat(c.photos) + "○".repeat(Math.max(0, 5 - c.photos))),
        h("td", {}, num(c.value)),
        h("td", {}, !c.in_play ? "career ruined" : c.ex ? "EX (worth nothing)" : "", c.sold_to_stunk ? " sold to Stunk" : "",
          sell.filter((m) => m.celebrity === c.celebrity).map((m) => ctx.control(m, `Sell ${c.celebrity} to Stunk`)))))));
}

function market(ctx, v, celebs) {
  return h("div", { class: "panel", "aria-label": "The three face-up photos" }, h("div", { class: "label" }, "Face-up photos"),
    h("div", { class: "row" }, v.market.map((c, slot) => {
      const select = ctx.movesOf("select", (m) => m.slot === slot)[0];
      if (!c) return h("span", { class: "card" }, `slot ${slot + 1} empty`);
      if (select) {
        return ctx.control(select, [h("strong", {}, `▣ ${c.celebrity}`), h("span", { class: "small" }, `offer slot ${slot + 1}`)],
          { class: "card", "aria-label": `Offer the photo in slot ${slot + 1}: ${cardLabel(c, celebs)}` });
      }
      return photo(c, celebs, { "aria-label": `Slot ${slot + 1}: ${cardLabel(c, celebs)}` });
    })));
}

function lot(ctx, v, celebs) {
  const l = v.lot;
  if (!l) return null;
  const offers = l.offers.map((o) => h("li", {}, `${ctx.name(o.seat)}: `, o.amount === null ? "passed" : num(o.amount)));
  return h("div", { class: "panel", "aria-label": "The photo on offer" },
    h("div", { class: "label" }, `On offer: slot ${l.slot + 1}, mediator ${ctx.name(v.mediator)}`),
    h("div", { class: "row" }, l.card ? photo(l.card, celebs) : null,
      h("div", {}, h("div", {}, `minimum ${num(l.minimum)}`, l.high !== null ? ` · high offer ${num(l.high)} by ${ctx.name(l.high_seat)}` : ""),
        offers.length ? h("ul", {}, offers) : h("div", { class: "small" }, "no offers yet"),
        l.declined.length ? h("div", { class: "small" }, `declined: ${ctx.names(l.declined)}`) : null)),
    h("div", { class: "controls" },
      ctx.movesOf("offer").map((m) => ctx.control(m, "Offer")),
      ctx.movesOf("pass").map((m) => ctx.control(m, "Pass")),
      ctx.movesOf("buy").map((m) => ctx.control(m, `Buy at ${num(l.high ?? l.minimum)}`)),
      ctx.movesOf("decline").map((m) => ctx.control(m, "Decline"))));
}

function hand(ctx, v, celebs) {
  const show = ctx.movesOf("show");
  const place = ctx.movesOf("place");
  ctx.claim(show);
  const need = show[0]?.cards.length ?? 0;
  const cards = (v.hand || []).map((c) => {
    const placing = place.find((m) => m.card === c.id);
    if (placing) {
      return ctx.control(placing, [h("strong", {}, `▣ ${c.celebrity}`), h("span", { class: "small" }, "place it")],
        { class: "card", "aria-label": `Place ${cardLabel(c, celebs)} in the empty slot` });
    }
    if (!show.length) return photo(c, celebs);
    const button = h("button", { type: "button", class: "card", "aria-pressed": String(chosen.has(c.id)),
      "aria-label": `Choose ${cardLabel(c, celebs)} to show`, "data-card": c.id },
    h("strong", {}, `▣ ${c.celebrity}`), h("span", { class: "small" }, celebs[c.celebrity]?.name ?? ""));
    button.addEventListener("click", () => {
      chosen.has(c.id) ? chosen.delete(c.id) : chosen.add(c.id);
      button.setAttribute("aria-pressed", String(chosen.has(c.id)));
      const match = show.find((m) => m.cards.length === chosen.size && m.cards.every((id) => chosen.has(id)));
      showButton.replaceWith(showButton = showControl(match));
    });
    return button;
  });
  const showControl = (move) => {
    if (move) return ctx.control(move, "Show these cards to your neighbour");
    return h("button", { type: "button", disabled: true }, `Choose ${need} cards to show (${chosen.size} chosen)`);
  };
  let showButton = show.length ? showControl(show.find((m) => moveKey([...m.cards].sort()) === moveKey([...chosen].sort()))) : null;
  if (!show.length) chosen.clear();
  return h("div", { class: "panel you", "aria-label": "Your hand" },
    h("div", { class: "label" }, `Your hand · cash ${num(v.cash[ctx.seat])}`),
    h("div", { class: "row" }, cards.length ? cards : h("span", { class: "small" }, "no cards")), showButton);
}

function seats(ctx, v, celebs) {
  return h("div", { class: "row" }, v.owned.map((owned, seat) => h("div",
    { class: `panel${seat === ctx.seat ? " you" : ""}`, "aria-label": `${ctx.name(seat)}'s table` },
    h("h3", {}, ctx.name(seat), v.to_act.includes(seat) ? " ▶" : "", seat === v.mediator ? " (mediator)" : ""),
    h("div", { class: "small" }, `cash ${v.cash[seat] === null ? "hidden" : num(v.cash[seat])} · ${v.hand_sizes[seat]} cards in hand`
      + ` · penalties ${num(v.penalties[seat])} · total ${num(v.totals[seat])}`),
    h("div", { class: "row" }, owned.map((c) => photo(c, celebs))))));
}

export function render(ctx) {
  const v = ctx.view;
  const celebs = Object.fromEntries(v.celebrities.map((c) => [c.celebrity, c]));
  const seen = v.seen && h("div", { class: "panel", "aria-label": "What your neighbour showed you" },
    h("div", { class: "label" }, `${ctx.name(v.seen.seat)} showed you`),
    h("div", { class: "row" }, v.seen.cards.map((c) => photo(c, celebs))));
  const shown = v.shown?.length ? h("div", { class: "small" }, `You showed: ${v.shown.map((c) => c.celebrity).join(", ")}`) : null;
  return [
    h("div", { class: "small" }, `Hand ${v.hand_no} of ${v.hand_count} · ${v.phase} · ${v.deck_size} cards in the deck`),
    h("div", { class: "row" }, market(ctx, v, celebs), lot(ctx, v, celebs)),
    ctx.seat !== null ? hand(ctx, v, celebs) : null, seen, shown,
    chronicle(ctx, v),
    seats(ctx, v, celebs),
  ];
}

const photoWords = (c) => `a photo of ${c.celebrity}`;

export const SENTENCES = {
  hand_started: (d, t) => `Hand ${d.hand} begins; ${t.name(d.starter)} starts.`,
  dealt: (d) => `You were dealt ${d.cards.map((c) => c.celebrity).join(", ")}.`,
  rumors_chosen: (d, t) => `${t.name(d.seat)} chose the cards to show.`,
  rumors: (d, t) => `${t.name(d.seat)} showed you ${d.cards.map((c) => c.celebrity).join(", ")}.`,
  selected: (d, t) => `${t.name(d.seat)} offers ${photoWords(d.card)} from slot ${d.slot + 1}, minimum ${num(d.minimum)}.`,
  offered: (d, t) => `${t.name(d.seat)} offered ${num(d.amount)}.`,
  passed: (d, t) => `${t.name(d.seat)} passed.`,
  price_set: (d, t) => `The price is ${num(d.price)}, offered by ${t.name(d.seat)}.`,
  declined: (d, t) => `${t.name(d.seat)} declined to buy.`,
  bought: (d, t) => `${t.name(d.seat)} bought ${photoWords(d.card)} for ${num(d.price)}${d.forced ? " (forced)" : ""}.`,
  commission: (d, t) => `${t.name(d.seat)} earned a commission of ${num(d.amount)}.`,
  placed: (d, t) => `${t.name(d.seat)} placed ${photoWords(d.card)} in slot ${d.slot + 1}; ${d.celebrity ?? d.card.celebrity} is now worth ${num(d.value)}.`,
  penalty: (d, t) => `${t.name(d.seat)} pays a penalty of ${num(d.amount)} (total ${num(d.total)}).`,
  taken_free: (d, t) => `${t.name(d.seat)} took ${photoWords(d.card)} for free.`,
  sold_to_stunk: (d, t) => `${t.name(d.seat)} sold ${photoWords(d.card)} to Stunk for ${num(d.value)}.`,
  slot_left_empty: (d, t) => `${t.name(d.seat)} left slot ${d.slot + 1} empty.`,
  careers_ruined: (d) => `Careers ruined: ${d.celebrities.join(", ")}.`,
  hand_scored: (d, t) => `Hand ${d.hand} scored: ${d.result.map((r, s) => `${t.name(s)} ${num(r.worth)}`).join(", ")}.`,
  game_over: (d, t) => `Game over: ${d.scores.map((s, seat) => `${t.name(seat)} ${num(s)}`).join(", ")}.`,
};
