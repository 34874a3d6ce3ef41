// Das Super-Blatt: four stair-step columns of scoops, holdings by category, the trend card.

import { h } from "/static/web/js/dom.js";
import { t } from "/static/web/js/i18n.js";

const CATEGORIES = ["sex", "crime", "sport", "business"];
const SYMBOL = { sex: "♥", crime: "✖", sport: "◎", business: "$" };

const cat = (c) => t(`sb.cat.${c}`);
const cardText = (c) => [`${SYMBOL[c.category]} ${cat(c.category)}`,
  c.special === "extra" ? t("sb.extra") : c.special === "arrow" ? `${"➜".repeat(c.arrows)} ${t("sb.arrows", { n: c.arrows })}` : ""];

function card(c, extra = {}) {
  const [name, special] = cardText(c);
  return h("span", { class: `card cat-${c.category}`, ...extra }, h("strong", {}, name), h("span", {}, special || " "));
}

function column(ctx, cards, i) {
  const take = ctx.movesOf("take", (m) => m.column === i)[0];
  const shown = cards.map((c, k) => {
    if (k === cards.length - 1 && take) {
      const [name, special] = cardText(c);
      return ctx.control(take, [h("strong", {}, name), h("span", {}, special || " ")],
        { class: `card cat-${c.category}`, title: t("sb.takeTop", { n: i + 1 }) }); // its column's group names it
    }
    return card(c, k === cards.length - 1 ? { "data-top": "" } : {});
  });
  return h("div", { class: "sb-column", role: "group", "data-key": `column-${i}`,
    "aria-label": t("sb.columnCards", { col: i + 1, n: cards.length }) },
  h("h3", {}, t("sb.column", { n: i + 1 })), shown.length ? shown : h("span", { class: "small" }, t("sb.empty")));
}

/** The standing: the points scored so far are public (every round is scored in front of everyone). */
function ranks(scores) {
  return scores.map((s) => 1 + scores.filter((x) => x > s).length);
}

function holdings(ctx, v) {
  const steal = ctx.movesOf("steal");
  const place = ranks(v.scores);
  return h("div", { class: "sb-holdings" }, v.holdings.map((held, seat) => h("div",
    { class: `panel${seat === ctx.seat ? " you" : ""}`, "aria-label": t("sb.holdingsOf", { name: ctx.name(seat) }) },
    h("h3", {}, ctx.name(seat), seat === v.turn ? " ▶" : ""),
    CATEGORIES.map((c) => h("div", { class: `tally cat-${c}` }, h("span", {}, `${SYMBOL[c]} ${cat(c)}`),
      h("strong", {}, held[c]))),
    h("div", { class: "small" }, t("sb.score", { score: v.scores[seat], place: place[seat] })),
    steal.filter((m) => m.victim === seat).map((m) =>
      ctx.control(m, t("sb.steal", { cat: cat(v.pending.category), name: ctx.name(seat) }))))));
}

export function render(ctx) {
  const v = ctx.view;
  const trend = h("div", { class: "panel", "aria-label": t("sb.trendCard") },
    h("div", { class: "label" }, t("sb.roundTrend", { round: v.round })),
    h("table", {}, h("tr", {}, h("th", {}, t("sb.category")), h("th", {}, t("sb.first")), h("th", {}, t("sb.second"))),
      CATEGORIES.map((c) => h("tr", {}, h("td", { class: `cat-${c}` }, ` ${SYMBOL[c]} ${cat(c)}`),
        h("td", {}, v.trend.points[c][0]), h("td", {}, v.trend.points[c][1])))),
    h("div", { class: "small" }, t("sb.deck", { deck: v.deck_size, trends: v.unturned_trends })));
  const pending = v.pending && h("div", { class: "note", role: "status" },
    v.pending.kind === "extra"
      ? [t("sb.pendingExtra", { name: ctx.name(v.turn), cat: cat(v.pending.category) }), " ",
        ctx.movesOf("pass").map((m) => ctx.control(m, t("sb.passExtra")))]
      : t("sb.pendingSteal", { name: ctx.name(v.turn), cat: cat(v.pending.category) }));
  return [
    pending,
    h("div", { class: "row" },
      h("div", { class: "sb-columns", "aria-label": t("sb.columns") }, v.columns.map((c, i) => column(ctx, c, i))),
      trend),
    holdings(ctx, v),
  ];
}

const cardWords = (c) => cardText(c).join(" ").trim();

export const SENTENCES = {
  round_started: (d, x) => t("sb.log.round_started", { round: d.round, name: x.name(d.starter),
    sex: d.points.sex[0], crime: d.points.crime[0], sport: d.points.sport[0], business: d.points.business[0] }),
  took: (d, x) => t("sb.log.took", { name: x.name(d.seat), card: cardWords(d.card), col: d.column + 1 }),
  took_extra: (d, x) => t("sb.log.took_extra", { name: x.name(d.seat), card: cardWords(d.card), col: d.column + 1 }),
  extra_declined: (d, x) => t("sb.log.extra_declined", { name: x.name(d.seat) }),
  stole: (d, x) => t("sb.log.stole", { name: x.name(d.seat), n: d.cards.length, cat: cat(d.category), victim: x.name(d.victim) }),
  round_scored: (d, x) => t("sb.log.round_scored", { round: d.round,
    scores: d.scores.map((s, seat) => `${x.name(seat)} ${s}`).join(", ") }),
  game_over: (d, x) => t("log.game_over", { scores: d.scores.map((s, seat) => `${x.name(seat)} ${s}`).join(", ") }),
};

export function breakdown(b) {
  return t("sb.breakdown", { rounds: b.rounds.map((r) => Object.values(r).reduce((a, x) => a + x, 0)).join(" + "),
    cards: CATEGORIES.map((c) => `${cat(c)} ${b.cards[c]}`).join(", ") });
}

/**
 * What a move does, before it is chosen (the book's Gameplay, Special Scoop Cards and Scoring): the card
 * taken and what it brings, what the arrows steal, and how the category then stands.
 */
export function preview(move, ctx) {
  const v = ctx.view;
  const mine = v.holdings[ctx.seat];
  const others = v.holdings.map((held, seat) => ({ seat, held })).filter((o) => o.seat !== ctx.seat);
  const standing = (c, n) => {
    const most = Math.max(0, ...others.map((o) => o.held[c]));
    const [first, second] = v.trend.points[c];
    return t("sb.pv.standing", { n, cat: cat(c), most, first, second,
      names: most ? ctx.names(others.filter((o) => o.held[c] === most).map((o) => o.seat)) : t("sb.pv.nobody") });
  };
  if (move.type === "take") {
    const column = v.columns[move.column];
    const card = column[column.length - 1];
    const c = card.category;
    const parts = [t("sb.pv.take", { col: move.column + 1, card: cardWords(card) })];
    const after = v.columns.map((col, i) => (i === move.column ? col.slice(0, -1) : col));
    const last = after.every((col) => !col.length);
    if (v.pending?.kind === "extra") parts.push(t("sb.pv.asExtra"));
    else if (card.special === "extra") {
      parts.push(last ? t("sb.pv.extraLast") : after.some((col) => col.length && col.at(-1).category === c)
        ? t("sb.pv.extra", { cat: cat(c) }) : t("sb.pv.extraNone", { cat: cat(c) }));
    } else if (card.special === "arrow") {
      const victims = others.filter((o) => o.held[c] > 0);
      parts.push(victims.length ? t("sb.pv.arrows", { n: card.arrows, cat: cat(c), names: ctx.names(victims.map((o) => o.seat)) })
        : t("sb.pv.arrowsNone", { cat: cat(c) }));
    }
    parts.push(standing(c, mine[c] + 1));
    if (last) parts.push(t("sb.pv.last"));
    return parts.join(" ");
  }
  if (move.type === "pass") return t("sb.pv.pass");
  if (move.type === "steal") {
    const c = v.pending.category;
    const n = Math.min(v.pending.arrows ?? 1, v.holdings[move.victim][c]);
    return `${t("sb.pv.steal", { n, cat: cat(c), name: ctx.name(move.victim), left: v.holdings[move.victim][c] - n })} ${standing(c, mine[c] + n)}`;
  }
  return null;
}
