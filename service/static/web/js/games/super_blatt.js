// Das Super-Blatt: four stair-step columns of scoops, holdings by category, the trend card.

import { h, words } from "../dom.js";

const CATEGORIES = ["sex", "crime", "sport", "business"];
const SYMBOL = { sex: "♥", crime: "✖", sport: "◎", business: "$" };

const cardText = (c) => [`${SYMBOL[c.category]} ${c.category}`,
  c.special === "extra" ? "EXTRA" : c.special === "arrow" ? `${"➜".repeat(c.arrows)} ${c.arrows} arrow${c.arrows > 1 ? "s" : ""}` : ""];

function card(c, extra = {}) {
  const [cat, special] = cardText(c);
  return h("span", { class: `card cat-${c.category}`, ...extra }, h("strong", {}, cat), h("span", {}, special || " "));
}

function column(ctx, cards, i) {
  const take = ctx.movesOf("take", (m) => m.column === i)[0];
  const shown = cards.map((c, k) => {
    if (k === cards.length - 1 && take) {
      const [cat, special] = cardText(c);
      return ctx.control(take, [h("strong", {}, cat), h("span", {}, special || " ")],
        { class: `card cat-${c.category}`, "aria-label": `Take the top card of column ${i + 1}: ${cat} ${special}` });
    }
    return card(c, k === cards.length - 1 ? { "aria-label": `Top of column ${i + 1}: ${cardText(c).join(" ")}` } : {});
  });
  return h("div", { class: "sb-column", role: "group", "aria-label": `Column ${i + 1}, ${cards.length} cards` },
    h("h3", {}, `Column ${i + 1}`), shown.length ? shown : h("span", { class: "small" }, "empty"));
}

function holdings(ctx, v) {
  const steal = ctx.movesOf("steal");
  return h("div", { class: "sb-holdings" }, v.holdings.map((held, seat) => h("div",
    { class: `panel${seat === ctx.seat ? " you" : ""}`, "aria-label": `${ctx.name(seat)}'s holdings` },
    h("h3", {}, ctx.name(seat), seat === v.turn ? " ▶" : ""),
    CATEGORIES.map((cat) => h("div", { class: `tally cat-${cat}` }, h("span", {}, `${SYMBOL[cat]} ${cat}`),
      h("strong", {}, held[cat]))),
    h("div", { class: "small" }, `score ${v.scores[seat]}`),
    steal.filter((m) => m.victim === seat).map((m) =>
      ctx.control(m, `Steal ${v.pending.category} from ${ctx.name(seat)}`)))));
}

export function render(ctx) {
  const v = ctx.view;
  const trend = h("div", { class: "panel", "aria-label": "The trend card" },
    h("div", { class: "label" }, `Round ${v.round} of 3 · trend card`),
    h("table", {}, h("tr", {}, h("th", {}, "category"), h("th", {}, "1st"), h("th", {}, "2nd")),
      CATEGORIES.map((cat) => h("tr", {}, h("td", { class: `cat-${cat}` }, ` ${SYMBOL[cat]} ${cat}`),
        h("td", {}, v.trend.points[cat][0]), h("td", {}, v.trend.points[cat][1])))),
    h("div", { class: "small" }, `${v.deck_size} cards in the deck, ${v.unturned_trends} trend cards unturned`));
  const pending = v.pending && h("div", { class: "note", role: "status" },
    v.pending.kind === "extra"
      ? [`${ctx.name(v.turn)} took an EXTRA: one more ${v.pending.category} card may be taken, or pass. `,
        ctx.movesOf("pass").map((m) => ctx.control(m, "Pass: no extra card"))]
      : `${ctx.name(v.turn)}'s arrows steal ${v.pending.category}: choose whom to steal from.`);
  return [
    pending,
    h("div", { class: "row" },
      h("div", { class: "sb-columns", style: null, "aria-label": "The four columns" }, v.columns.map((c, i) => column(ctx, c, i))),
      trend),
    holdings(ctx, v),
  ];
}

const cardWords = (c) => cardText(c).join(" ").trim();

export const SENTENCES = {
  round_started: (d, t) => `Round ${d.round} begins; ${t.name(d.starter)} starts. Trend: sex ${d.points.sex[0]}, `
    + `crime ${d.points.crime[0]}, sport ${d.points.sport[0]}, business ${d.points.business[0]} for first place.`,
  took: (d, t) => `${t.name(d.seat)} took ${cardWords(d.card)} from column ${d.column + 1}.`,
  took_extra: (d, t) => `${t.name(d.seat)} took an extra card, ${cardWords(d.card)}, from column ${d.column + 1}.`,
  extra_declined: (d, t) => `${t.name(d.seat)} took no extra card.`,
  stole: (d, t) => `${t.name(d.seat)} stole ${d.cards.length} ${d.category} card${d.cards.length === 1 ? "" : "s"} from ${t.name(d.victim)}.`,
  round_scored: (d, t) => `Round ${d.round} scored: ` + d.scores.map((s, seat) => `${t.name(seat)} ${s}`).join(", ") + ".",
  game_over: (d, t) => `Game over: ` + d.scores.map((s, seat) => `${t.name(seat)} ${s}`).join(", ") + ".",
};

export function breakdown(b) {
  return `rounds ${b.rounds.map((r) => Object.values(r).reduce((a, x) => a + x, 0)).join(" + ")}; cards held: `
    + CATEGORIES.map((c) => `${words(c)} ${b.cards[c]}`).join(", ");
}
