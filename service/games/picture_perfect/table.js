// Picture Perfect: the mat and its table, the envelopes you may see (each guest with its traits), the
// exchange card, bids, the final placement square by square, and at the end each seat's photo (the
// referee's SVG), which opens large.

import { fill, h, num } from "/static/web/js/dom.js";
import { has, t } from "/static/web/js/i18n.js";

let picking = null; // the guest chosen for the next placement, kept across redraws
let guests = {}; // id -> the view's guest record (name, height, gender, face), for names in sentences

const LABELS = ["vip", "keep", "peek", "take", "return", "steal", "deposit", "offer", "pay", "sell", "buy", "pass",
  "ready", "done"];
const label = (type) => (LABELS.includes(type) ? t(`pp.move.${type}`) : type);

/** A guest's name in the page's language ("the Little Boy" -> "Little Boy"); never a raw id. */
export function guestName(id) {
  if (!id) return t("pp.nobody");
  return has(`pp.guest.${id}`) ? t(`pp.guest.${id}`) : guests[id]?.name ?? id;
}

/** What the rules say about a guest's figure: man or woman, tall, short or low, face shown or not. */
function traits(g) {
  if (!g) return "";
  return [g.gender ? t(`pp.gender.${g.gender}`) : t("pp.gender.none"), t(`pp.height.${g.height}`),
    g.face ? t("pp.face.yes") : t("pp.face.no")].join(" · ");
}

function wish(c) {
  const key = `pp.wish.${c.kind}`;
  if (!has(key)) return c.text;
  return t(key, { area: t(`pp.area.${c.area}`), guest: guestName(c.guest), gender: t(`pp.gender.a.${c.gender}`) });
}

function guestControls(ctx, guest) {
  return ctx.moves.filter((m) => m.guest === guest && m.type !== "place").map((m) => {
    let text = label(m.type);
    if (m.type === "gift") text = t("pp.giveTo", { name: ctx.name(m.to) });
    if (m.type === "offer" && m.price !== undefined) text = t("pp.offerAt", { price: m.price });
    return ctx.control(m, text);
  });
}

function envelope(ctx, v, guest) {
  const wishes = (v.known?.[guest] || v.revealed?.[guest]);
  return h("div", { class: "panel", "data-guest": guest },
    h("strong", {}, guestName(guest)), wishes?.vips ? ` ★ VIP ×${wishes.vips}` : "",
    h("div", { class: "traits small", "data-traits": guest }, traits(guests[guest])),
    wishes ? h("ul", { class: "pp-wishes" }, wishes.cards.map((c) => h("li", {}, wish(c))))
      : h("div", { class: "small" }, t("pp.closed")),
    h("div", { class: "controls" }, guestControls(ctx, guest)));
}

function envelopes(ctx, v) {
  return [
    v.held.map((held, seat) => h("div", { class: `panel${seat === ctx.seat ? " you mine-first" : ""}`,
      "aria-label": t("pp.envelopesOf", { name: ctx.name(seat) }) },
    h("h3", {}, ctx.name(seat), v.to_act.includes(seat) ? " ▶" : "", ` · ${t("pp.decorations", { n: v.decorations[seat] })}`),
    h("div", { class: "pp-envelopes" }, held.map((g) => envelope(ctx, v, g))))),
    v.middle.length || v.fresh.length ? h("div", { class: "panel", "aria-label": t("pp.middle") },
      h("h3", {}, t("pp.middle")),
      h("div", { class: "pp-envelopes" }, [...v.middle, ...v.fresh].map((g) => envelope(ctx, v, g)))) : null,
  ];
}

function exchange(ctx, v) {
  const p = v.pending || {};
  const auction = p.kind === "auction" ? h("div", {},
    p.guest ? t("pp.upForAuction", { name: guestName(p.guest) }) : "", p.price ? ` ${t("pp.at", { price: p.price })}` : "",
    p.high ? ` · ${t("pp.highBid", { high: p.high })}${p.high_bidder !== null ? ` ${t("pp.by", { name: ctx.name(p.high_bidder) })}` : ""}` : "") : null;
  const title = v.exchange ? (has(`pp.exchange.${v.exchange}`) ? t(`pp.exchange.${v.exchange}`) : v.exchange_title) : null;
  return h("div", { class: "panel", "aria-label": t("pp.theExchange") },
    h("div", { class: "label" }, t("pp.round", { round: v.round, rounds: v.rounds }), ` · ${ctx.phase(v.phase)}`),
    h("div", {}, title ? t("pp.exchangeCard", { title }) : t("pp.noExchange"),
      ` · ${t("pp.cardsLeft", { n: v.exchange_cards_left })}`),
    auction,
    h("div", { class: "controls" }, ["ready", "pass", "pay", "sell", "buy", "bid"]
      .flatMap((type) => ctx.movesOf(type).map((m) => ctx.control(m, type === "bid" ? t("pp.bid") : label(type))))));
}

function mat(ctx, v) {
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
      const text = t("pp.putHere", { name: guestName(picking) });
      squares.push(h("div", { class: `pp-square${table.has(key) ? " table" : ""}`, "data-square": key },
        h("span", { class: "small" }, table.has(key) ? t("pp.table") : t("pp.rowCol", { r, c })),
        at[key] ? h("strong", {}, guestName(at[key])) : null,
        move ? ctx.control(move, text, { "aria-label": `${text} (${t("pp.rowCol", { r, c })})` }) : null));
    }
  }
  const pickers = toPlace.map((g) => {
    const button = h("button", { type: "button", class: "card", "aria-pressed": String(g === picking), "data-pick": g,
      "data-preview": t("pp.pv.pick", { guest: guestName(g) }) },
      h("strong", {}, guestName(g)), h("span", { class: "small" }, traits(guests[g])));
    button.addEventListener("click", () => {
      picking = g === picking ? null : g;
      button.dispatchEvent(new CustomEvent("redraw", { bubbles: true }));
    });
    return button;
  });
  return h("div", { class: "panel", "aria-label": t("pp.mat") },
    h("div", { class: "label" }, t("pp.matLabel")),
    pickers.length ? h("div", { class: "controls" }, h("span", {}, t("pp.choosePlace")), pickers) : null,
    h("div", { class: "pp-mat" }, squares),
    h("div", { class: "controls" }, ctx.movesOf("decorate").map((m) => ctx.control(m, t("pp.decorate", { col: m.column }))),
      ctx.movesOf("done").map((m) => ctx.control(m, label("done")))),
    v.placement?.decor?.length ? h("div", { class: "small" }, t("pp.decorated", { list: v.placement.decor.join(", ") })) : null);
}

export function render(ctx) {
  const v = ctx.view;
  guests = Object.fromEntries(v.guests.map((g) => [g.id, g]));
  const board = h("div", { class: "row" }, exchange(ctx, v), mat(ctx, v));
  return [board, envelopes(ctx, v)];
}

/**
 * "Done: my photo is set" cannot be taken back: when it leaves points on the table (nobody placed, or
 * guests of yours left out, who then score nothing) the page asks first.
 */
export function confirm(move, ctx) {
  if (move.type !== "done") return null;
  const v = ctx.view;
  const placed = Object.keys(v.placement?.guests || {});
  if (!placed.length) return t("pp.confirmNobody");
  const left = (v.held[ctx.seat] || []).filter((g) => !placed.includes(g));
  return left.length ? t("pp.confirmLeft", { n: left.length, names: left.map(guestName).join(", ") }) : null;
}

// the photos in the page's language: the server draws the legend in English; its lines are read and
// written again from the catalogue (a line not understood stays as drawn)
const photos = new Map(); // url -> Promise<{img, link}> in the page's language

function translatePhoto(svgText, name) {
  const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
  const say = (el, text) => { el.textContent = text; };
  const title = doc.querySelector("title");
  if (title) say(title, t("pp.svg.title", { name }));
  const extra = (part) => {
    let m = part.match(/^decorations on table column\(s\) (.+)$/);
    if (m) return t("pp.svg.decor", { list: m[1] });
    m = part.match(/^(\d+) decorations: ([+-]?\d+)$/);
    if (m) return t("pp.svg.decorPoints", { n: Number(m[1]), points: m[2] });
    m = part.match(/^(\d+) guests placed, (\d+) envelopes held$/);
    if (m) return t("pp.svg.placed", { placed: m[1], envelopes: m[2] });
    return part;
  };
  for (const el of doc.querySelectorAll("text")) {
    const text = el.textContent;
    let m;
    if (text.startsWith("camera side")) say(el, t("pp.svg.camera"));
    else if ((m = text.match(/^Seat \d+: (-?\d+) points$/))) say(el, t("pp.svg.total", { name, total: m[1] }));
    else if (/^No guests placed\.$/.test(text)) say(el, t("pp.svg.nobody"));
    else if ((m = text.match(/^(\d+)\. .+ - row (\d+), column (\d+), (\w+), face (\w+) - cards ([✓✗ ]*)(?:, (\d+) VIP)?: ([+-]\d+)$/))) {
      say(el, t("pp.svg.guest", { no: m[1], guest: guestName(el.getAttribute("data-guest")), r: m[2], c: m[3],
        height: has(`pp.svg.height.${m[4]}`) ? t(`pp.svg.height.${m[4]}`) : m[4],
        face: has(`pp.svg.face.${m[5]}`) ? t(`pp.svg.face.${m[5]}`) : m[5], marks: m[6],
        vip: m[7] ? t("pp.svg.vip", { n: m[7] }) : "", points: m[8] }));
    } else if (/[a-z]{3}/.test(text) && text.includes("; ") || /guests placed|decorations/.test(text)) {
      say(el, text.split("; ").map(extra).join("; "));
    }
  }
  return new XMLSerializer().serializeToString(doc);
}

/**
 * The photo's legend (the lines under the picture) taken out as text, and the picture alone: drawn small in
 * a column, the legend would be a few pixels high, so the page writes it in its own type under the picture.
 */
function splitLegend(svgText) {
  const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
  const root = doc.documentElement;
  // the scene's last line, centred under it: "camera side" (the numbers over the guests are centred too, higher up)
  const camera = [...doc.querySelectorAll("text[text-anchor=middle]")]
    .sort((a, b) => Number(b.getAttribute("y")) - Number(a.getAttribute("y")))[0];
  if (!camera) return { picture: svgText, legend: [] };
  const bottom = Number(camera.getAttribute("y")) + 8;
  const legend = [];
  for (const el of doc.querySelectorAll("text")) {
    if (Number(el.getAttribute("y")) > bottom && el.getAttribute("x") === "24") { // the legend's lines, at the left
      legend.push(el.textContent);
      el.remove();
    }
  }
  const width = root.getAttribute("width");
  root.setAttribute("height", String(bottom));
  root.setAttribute("viewBox", `0 0 ${width} ${bottom}`);
  return { picture: new XMLSerializer().serializeToString(doc), legend };
}

/**
 * The photo's picture and full-size link: the server's drawing, its words written again from the catalogue
 * (in English too: the server names a seat by its 0-based number, the page by its name).
 */
function photoIn(url, name) {
  if (!photos.has(url)) {
    photos.set(url, fetch(url).then((r) => {
      if (!r.ok) throw new Error(`photo ${r.status}`);
      return r.text();
    }).then((svg) => {
      const local = translatePhoto(svg, name);
      const { picture, legend } = splitLegend(local);
      return { img: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(picture)}`, legend,
        full: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(local)}`,
        link: URL.createObjectURL(new Blob([local], { type: "image/svg+xml" })) };
    }).catch((error) => { // drawn as the server has it for now; the next redraw tries again
      console.warn(error);
      photos.delete(url);
      return { img: url, full: url, link: url, legend: [] };
    }));
  }
  return photos.get(url);
}

export function finale({ snap, matchId, name }) {
  const dialog = h("dialog", { class: "photo-large", "aria-label": t("pp.photoLarge") });
  const open = (seat) => {
    const close = h("button", { type: "button", class: "close" }, t("pp.close"));
    close.addEventListener("click", () => dialog.close());
    const img = h("img", { alt: t("pp.photoOf", { name: name(seat) }) });
    photoIn(`/matches/${matchId}/photos/${seat}`, name(seat)).then((p) => { img.src = p.full; });
    dialog.replaceChildren(h("figure", {}, img, h("figcaption", {}, name(seat))), close);
    dialog.showModal();
    close.focus();
  };
  return [h("h2", {}, t("pp.photos")), h("div", { class: "photos" }, snap.seats.map((s) => {
    const url = `/matches/${matchId}/photos/${s.seat}`;
    const img = h("img", { alt: t("pp.photoOf", { name: name(s.seat) }) });
    const link = h("a", { href: url, target: "_blank" }, t("pp.openFull"));
    const legend = h("ul", { class: "photo-legend", "data-legend": s.seat });
    photoIn(url, name(s.seat)).then((p) => {
      img.src = p.img;
      link.href = p.link;
      fill(legend, p.legend.map((line, i) => h("li", { class: i ? null : "total" }, line)));
    });
    const enlarge = h("button", { type: "button", class: "enlarge", "data-enlarge": s.seat,
      "aria-label": t("pp.enlarge", { name: name(s.seat) }) }, img);
    enlarge.addEventListener("click", () => open(s.seat));
    return h("figure", {}, enlarge, legend, h("figcaption", {}, name(s.seat), " · ", link));
  })), dialog];
}

/** A seat's photo score: each placed guest's points, then decorations. */
export function breakdown(b) {
  const scored = Object.entries(b.guests || {}).filter(([, g]) => g.points)
    .map(([id, g]) => `${guestName(id)} ${g.points > 0 ? "+" : ""}${g.points}`);
  return t("pp.breakdown", { guests: b.guest_points, list: scored.join(", ") || t("pp.noneScored"),
    decor: b.decoration_points, placed: b.placed, total: b.total });
}

const names = (list) => list.map(guestName).join(", ");

function choice(d, x) {
  if ("gift" in d) return t("pp.log.choice_gift", { guest: guestName(d.gift), to: x.name(d.to) });
  if ("place" in d) return t("pp.log.choice_place", { guest: guestName(d.place), r: d.row, c: d.col });
  if ("decorate" in d) return t("pp.log.choice_decorate", { col: d.decorate });
  return t("pp.log.your_choice", { what: Object.entries(d).map(([k, v]) => {
    const what = has(`pp.choice.${k}`) ? t(`pp.choice.${k}`) : k;
    const value = typeof v === "string" && v in guests ? guestName(v) : typeof v === "number" ? num(v)
      : Array.isArray(v) ? v.map((g) => (g in guests ? guestName(g) : g)).join(", ") : v === null ? t("pp.nothing") : v;
    return `${what}: ${value}`;
  }).join(", ") });
}

export const SENTENCES = {
  round_started: (d, x) => t("pp.log.round_started", { round: d.round, name: x.name(d.starter) }),
  round_ended: (d) => t("pp.log.round_ended", { round: d.round }),
  looked: (d) => t("pp.log.looked", { list: names(d.envelopes.map((e) => e.guest)) }),
  vip_added: (d) => t("pp.log.vip_added", { guest: guestName(d.guest), n: d.vips }),
  ready: (d, x) => t("pp.log.ready", { name: x.name(d.seat) }),
  exchange_revealed: (d) => t("pp.log.exchange_revealed", { round: d.round,
    title: has(`pp.exchange.${d.card}`) ? t(`pp.exchange.${d.card}`) : d.title }),
  your_choice: (d, x) => choice(d, x),
  chose: (d, x) => t("pp.log.chose", { name: x.name(d.seat) }),
  gifts_given: (d, x) => t("pp.log.gifts_given", { list: d.transfers.map((g) => t("pp.log.gave",
    { from: x.name(g.from), guest: guestName(g.guest), to: x.name(g.to) })).join("; ") }),
  stolen: (d, x) => t("pp.log.stolen", { list: d.transfers.map((g) => t("pp.log.stole",
    { to: x.name(g.to), guest: guestName(g.guest), from: x.name(g.from) })).join("; ") }),
  rumors: (d) => t("pp.log.rumors", { list: names(d.peeks) }),
  danced: () => t("pp.log.danced"),
  revealed: (d) => t("pp.log.revealed", { list: names(d.envelopes.map((e) => e.guest)) }),
  took: (d, x) => t("pp.log.took", { name: x.name(d.seat), guest: guestName(d.guest) }),
  returned: (d, x) => t("pp.log.returned", { name: x.name(d.seat), guest: guestName(d.guest) }),
  deposited: (d) => t("pp.log.deposited", { list: names(d.deposits.filter(Boolean)) }),
  auction_offered: (d, x) => t(d.price ? "pp.log.auction_offered_at" : "pp.log.auction_offered",
    { name: x.name(d.active), guest: guestName(d.guest), price: d.price }),
  auction_skipped: (d, x) => t("pp.log.auction_skipped", { name: x.name(d.active) }),
  auction_unsold: (d) => t("pp.log.auction_unsold", { guest: guestName(d.guest) }),
  auction_won: (d, x) => t("pp.log.auction_won", { name: x.name(d.seat), guest: guestName(d.guest), price: d.price }),
  bid: (d, x) => t("pp.log.bid", { name: x.name(d.seat), amount: d.amount }),
  passed: (d, x) => t(d.forced ? "pp.log.passed_forced" : "pp.log.passed", { name: x.name(d.seat) }),
  sealed_bids: (d, x) => t("pp.log.sealed_bids", { list: d.bids.map((b, s) => (b === null ? null : `${x.name(s)} ${b}`))
    .filter(Boolean).join(", ") }),
  losers_paid: (d, x) => t("pp.log.losers_paid", { name: x.name(d.to), list: d.paid.join(", ") }),
  tie: (d, x) => t("pp.log.tie", { amount: d.amount, names: x.names(d.seats) }),
  paid_to_look: (d, x) => t("pp.log.paid_to_look", { names: x.names(d.payers), price: d.price, guest: guestName(d.guest) }),
  rescued: (d, x) => t("pp.log.rescued", { name: x.name(d.seat), names: x.names(d.from) }),
  final_placement: () => t("pp.log.final_placement"),
  placement_done: (d, x) => t("pp.log.placement_done", { name: x.name(d.seat) }),
  photos: () => t("pp.log.photos"),
  game_over: (d, x) => t("log.game_over", { scores: d.scores.map((s, seat) => `${x.name(seat)} ${num(s)}`).join(", ") }),
};

/**
 * What a move does, before it is chosen (the Photography Guide's Exchanges, Auctions, VIP Cards, Final
 * Guest Placement and Scoring): where an envelope goes and who learns what, what a bid or payment costs
 * in decorations, and for a placement the guest's wishes that the square may fulfil.
 */
export function preview(move, ctx) {
  const v = ctx.view;
  const guest = move.guest ? guestName(move.guest) : "";
  const holder = (g) => v.held.findIndex((held) => held.includes(g));
  const p = v.pending || {};
  switch (move.type) {
    case "ready": return t("pp.pv.ready");
    case "vip": return t("pp.pv.vip", { guest });
    case "keep": return t("pp.pv.keep", { guest, n: (v.held[ctx.seat] || []).length - 1 });
    case "gift": return t("pp.pv.gift", { guest, name: ctx.name(move.to) });
    case "peek": {
      const from = holder(move.guest);
      return t("pp.pv.peek", { guest, where: from >= 0 ? ctx.name(from) : t("pp.middle") });
    }
    case "take": return t("pp.pv.take", { guest });
    case "return": return t("pp.pv.return", { guest });
    case "steal": return t("pp.pv.steal", { guest, name: ctx.name(holder(move.guest)) });
    case "deposit": return t("pp.pv.deposit", { guest });
    case "offer": return move.price !== undefined ? t("pp.pv.offerAt", { guest, price: move.price }) : t("pp.pv.offer", { guest });
    case "pay": return t("pp.pv.pay", { price: p.price ?? "?", guest: guestName(p.guest), n: v.decorations[ctx.seat] });
    case "sell": return t("pp.pv.sell", { guest: guestName(p.guest), high: p.high ?? 0, name: p.high_bidder !== null && p.high_bidder !== undefined ? ctx.name(p.high_bidder) : t("pp.nobody") });
    case "buy": return t("pp.pv.buy", { guest: guestName(p.guest), high: p.high ?? 0 });
    case "bid": return t(v.exchange === "secret" || v.exchange === "unfair_secret" ? "pp.pv.bidSecret" : "pp.pv.bid",
      { amount: move.amount, guest: guestName(p.guest), n: v.decorations[ctx.seat] });
    case "pass": return t(p.kind === "auction" ? "pp.pv.passAuction" : v.exchange === "rumors" ? "pp.pv.passRumors" : "pp.pv.pass");
    case "place": {
      const wishes = (v.known?.[move.guest] || v.revealed?.[move.guest])?.cards || [];
      return t("pp.pv.place", { guest, r: move.row, c: move.col })
        + (wishes.length ? ` ${t("pp.pv.wishes", { list: wishes.map(wish).join(" · ") })}` : "");
    }
    case "decorate": return t("pp.pv.decorate", { col: move.column, n: v.decorations[ctx.seat] });
    case "done": {
      const placed = Object.keys(v.placement?.guests || {});
      const left = (v.held[ctx.seat] || []).filter((g) => !placed.includes(g));
      return t("pp.pv.done", { n: placed.length, left: left.length });
    }
    default: return null;
  }
}
