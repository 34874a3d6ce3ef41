// Picture Perfect: the mat and its table, the envelopes you may see, the exchange card, bids,
// the final placement square by square, and at the end each seat's photo (the referee's SVG).

import { h, num } from "../dom.js";

let picking = null; // the guest chosen for the next placement, kept across redraws

const LABELS = {
  vip: "Make VIP", keep: "Keep", peek: "Peek", take: "Take", return: "Return", steal: "Steal", deposit: "Deposit",
  offer: "Offer", pay: "Pay", sell: "Sell", buy: "Buy", pass: "Pass", ready: "Ready", done: "Done: my photo is set",
};

function guestControls(ctx, guest) {
  return ctx.moves.filter((m) => m.guest === guest && m.type !== "place").map((m) => {
    let label = LABELS[m.type] ?? m.type;
    if (m.type === "gift") label = `Give to ${ctx.name(m.to)}`;
    if (m.type === "offer" && m.price !== undefined) label = `Offer at ${m.price}`;
    return ctx.control(m, label);
  });
}

function envelope(ctx, v, guest, names) {
  const wishes = (v.known?.[guest] || v.revealed?.[guest]);
  return h("div", { class: "panel", "data-guest": guest },
    h("strong", {}, names[guest]), wishes?.vips ? ` ★ VIP ×${wishes.vips}` : "",
    wishes ? h("ul", { class: "pp-wishes" }, wishes.cards.map((c) => h("li", {}, c.text)))
      : h("div", { class: "small" }, "envelope closed"),
    h("div", { class: "controls" }, guestControls(ctx, guest)));
}

function envelopes(ctx, v, names) {
  return [
    v.held.map((held, seat) => h("div", { class: `panel${seat === ctx.seat ? " you" : ""}`, "aria-label": `${ctx.name(seat)}'s envelopes` },
      h("h3", {}, ctx.name(seat), v.to_act.includes(seat) ? " ▶" : "", ` · decorations ${v.decorations[seat]}`),
      h("div", { class: "pp-envelopes" }, held.map((g) => envelope(ctx, v, g, names))))),
    v.middle.length || v.fresh.length ? h("div", { class: "panel", "aria-label": "The middle of the table" },
      h("h3", {}, "Middle of the table"),
      h("div", { class: "pp-envelopes" }, [...v.middle, ...v.fresh].map((g) => envelope(ctx, v, g, names)))) : null,
  ];
}

function exchange(ctx, v, names) {
  const p = v.pending || {};
  const auction = p.kind === "auction" ? h("div", {},
    p.guest ? `Up for auction: ${names[p.guest]}` : "", p.price ? ` at ${p.price}` : "",
    p.high ? ` · high bid ${p.high}${p.high_bidder !== null ? ` by ${ctx.name(p.high_bidder)}` : ""}` : "") : null;
  return h("div", { class: "panel", "aria-label": "The exchange" },
    h("div", { class: "label" }, `Round ${v.round} of ${v.rounds} · ${v.phase}`),
    h("div", {}, v.exchange_title ? `Exchange card: ${v.exchange_title}` : "No exchange card turned",
      ` · ${v.exchange_cards_left} cards left`),
    auction,
    h("div", { class: "controls" }, ["ready", "pass", "pay", "sell", "buy", "bid"]
      .flatMap((t) => ctx.movesOf(t).map((m) => ctx.control(m, t === "bid" ? "Bid" : LABELS[t])))));
}

function mat(ctx, v, names) {
  const place = ctx.movesOf("place");
  ctx.claim(place);
  const toPlace = [...new Set(place.map((m) => m.guest))];
  if (!toPlace.includes(picking)) picking = null;
  const at = {};
  for (const [g, [r, c]] of Object.entries(v.placement?.guests || {})) at[`${r},${c}`] = g;
  const table = new Set(v.mat.table.map(([r, c]) => `${r},${c}`));
  const squares = [];
  for (let r = v.mat.rows; r >= 1; r -= 1) {
    for (let c = 1; c <= v.mat.cols; c += 1) {
      const key = `${r},${c}`;
      const move = picking && place.find((m) => m.guest === picking && m.row === r && m.col === c);
      squares.push(h("div", { class: `pp-square${table.has(key) ? " table" : ""}`, "data-square": key },
        h("span", { class: "small" }, table.has(key) ? "table" : `row ${r}, col ${c}`),
        at[key] ? h("strong", {}, names[at[key]]) : null,
        move ? ctx.control(move, `Put ${names[picking]} here`, { "aria-label": `Put ${names[picking]} on row ${r}, column ${c}` }) : null));
    }
  }
  const pickers = toPlace.map((g) => {
    const button = h("button", { type: "button", class: "card", "aria-pressed": String(g === picking), "data-pick": g },
      names[g]);
    button.addEventListener("click", () => {
      picking = g === picking ? null : g;
      button.dispatchEvent(new CustomEvent("redraw", { bubbles: true }));
    });
    return button;
  });
  return h("div", { class: "panel", "aria-label": "The mat (row 1 nearest the camera, at the bottom)" },
    h("div", { class: "label" }, "The mat · the camera is below row 1"),
    pickers.length ? h("div", { class: "controls" }, h("span", {}, "Choose a guest to place: "), pickers) : null,
    h("div", { class: "pp-mat" }, squares),
    h("div", { class: "controls" }, ctx.movesOf("decorate").map((m) => ctx.control(m, `Decorate column ${m.column}`)),
      ctx.movesOf("done").map((m) => ctx.control(m, LABELS.done))),
    v.placement?.decor?.length ? h("div", { class: "small" }, `Decorated columns: ${v.placement.decor.join(", ")}`) : null);
}

export function render(ctx) {
  const v = ctx.view;
  const names = Object.fromEntries(v.guests.map((g) => [g.id, g.name]));
  const board = h("div", { class: "row" }, exchange(ctx, v, names), mat(ctx, v, names));
  return [board, envelopes(ctx, v, names)];
}

export function finale({ snap, matchId, name }) {
  return [h("h2", {}, "The photos"), h("div", { class: "photos" }, snap.seats.map((s) => h("figure", {},
    h("img", { src: `/matches/${matchId}/photos/${s.seat}`, alt: `${name(s.seat)}'s photo of the wedding guests` }),
    h("figcaption", {}, name(s.seat)))))];
}

/** A seat's photo score: each placed guest's points, then decorations. */
export function breakdown(b) {
  const guests = Object.entries(b.guests || {}).filter(([, g]) => g.points)
    .map(([id, g]) => `${guest(id)} ${g.points > 0 ? "+" : ""}${g.points}`);
  return `guests ${b.guest_points} (${guests.join(", ") || "none scored"}); decorations ${b.decoration_points}; `
    + `${b.placed} placed; total ${b.total}`;
}

const guest = (id) => (id ? id.replaceAll("_", " ") : "nobody");

export const SENTENCES = {
  round_started: (d, t) => `Round ${d.round} begins; ${t.name(d.starter)} starts.`,
  round_ended: (d) => `Round ${d.round} is over.`,
  looked: (d) => `You looked into ${d.envelopes.map((e) => guest(e.guest)).join(", ")}.`,
  vip_added: (d) => `${guest(d.guest)} is now a VIP (×${d.vips}).`,
  ready: (d, t) => `${t.name(d.seat)} is ready.`,
  exchange_revealed: (d) => `Round ${d.round}'s exchange card: ${d.title}.`,
  your_choice: (d) => `Your secret choice: ${Object.entries(d).map(([k, v]) => `${k} ${v}`).join(", ")}.`,
  chose: (d, t) => `${t.name(d.seat)} has chosen.`,
  gifts_given: (d, t) => `Gifts: ${d.transfers.map((x) => `${t.name(x.from)} gave ${guest(x.guest)} to ${t.name(x.to)}`).join("; ")}.`,
  stolen: (d, t) => `Thefts: ${d.transfers.map((x) => `${t.name(x.to)} stole ${guest(x.guest)} from ${t.name(x.from)}`).join("; ")}.`,
  rumors: (d) => `Rumours: peeks into ${d.peeks.map(guest).join(", ")}.`,
  danced: () => "The dance is over: guests changed envelopes.",
  revealed: (d) => `Revealed: ${d.envelopes.map((e) => guest(e.guest)).join(", ")}.`,
  took: (d, t) => `${t.name(d.seat)} took ${guest(d.guest)}.`,
  returned: (d, t) => `${t.name(d.seat)} returned ${guest(d.guest)}.`,
  deposited: (d) => `Deposited in the middle: ${d.deposits.map(guest).join(", ")}.`,
  auction_offered: (d, t) => `${t.name(d.active)} puts ${guest(d.guest)} up for auction${d.price ? ` at ${d.price}` : ""}.`,
  auction_skipped: (d, t) => `${t.name(d.active)} offers nothing.`,
  auction_unsold: (d) => `${guest(d.guest)} found no buyer.`,
  auction_won: (d, t) => `${t.name(d.seat)} won ${guest(d.guest)} for ${d.price}.`,
  bid: (d, t) => `${t.name(d.seat)} bid ${d.amount}.`,
  passed: (d, t) => `${t.name(d.seat)} passed${d.forced ? " (no choice)" : ""}.`,
  sealed_bids: (d, t) => `Sealed bids opened: ${d.bids.map((b, s) => (b === null ? null : `${t.name(s)} ${b}`)).filter(Boolean).join(", ")}.`,
  losers_paid: (d, t) => `The others paid ${t.name(d.to)}: ${d.paid.join(", ")}.`,
  tie: (d, t) => `Tie at ${d.amount} between ${t.names(d.seats)}.`,
  paid_to_look: (d, t) => `${t.names(d.payers)} paid ${d.price} to look into ${guest(d.guest)}.`,
  rescued: (d, t) => `${t.name(d.seat)} was helped out by ${t.names(d.from)}.`,
  final_placement: () => "The final photo: everyone places their guests, in secret.",
  placement_done: (d, t) => `${t.name(d.seat)} has set the photo.`,
  photos: () => "The photos are taken.",
  game_over: (d, t) => `Game over: ${d.scores.map((s, seat) => `${t.name(seat)} ${num(s)}`).join(", ")}.`,
};
