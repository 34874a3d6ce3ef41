// Play one match of each game with a client generated from openapi.yaml (openapi-typescript types,
// openapi-fetch calls), compiled with `tsc --strict`: moves and views are handled through the generated
// types only, narrowed by `game` and by each move's `type` (no `any`, no `as`).
//
//   npm ci && npm run generate && npm run build && node dist/play.js http://127.0.0.1:8000 super_blatt ...
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
type Snapshot = paths["/matches/{match_id}"]["get"]["responses"][200]["content"]["application/json"];
type Game = Snapshot["game"];
type Move = Schemas["MoveRequest"]["move"];
type LegalMoves = NonNullable<Awaited<ReturnType<typeof legalMoves>>>;

const PLAYERS: Record<Game, number> = { super_blatt: 2, big_shot: 3, paparazzo: 3, dice_party: 2, picture_perfect: 2 };

let seed = 1;
function random(): number {  // a small seeded generator, so that a run can be repeated
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}

function choose<T>(items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("nothing to choose from");
  return item;
}

function pick(span: Schemas["Span"]): number {
  return span.min + span.step * Math.floor(random() * (Math.floor((span.max - span.min) / span.step) + 1));
}

// A legal move becomes a move: only the move types whose legal form carries a range differ.
function superBlatt(m: Schemas["SuperBlattLegalMove"]): Schemas["SuperBlattMove"] {
  return m;
}
function bigShot(m: Schemas["BigShotLegalMove"]): Schemas["BigShotMove"] {
  return m.type === "bid" ? { type: "bid", amount: pick(m.amount) } : m;
}
function paparazzo(m: Schemas["PaparazzoLegalMove"]): Schemas["PaparazzoMove"] {
  return m.type === "offer" ? { type: "offer", amount: pick(m.amount) } : m;
}
function diceParty(m: Schemas["DicePartyLegalMove"]): Schemas["DicePartyMove"] {
  if (m.type === "steal") return { type: "steal", count: pick(m.count) };
  if (m.type === "provoke") return { type: "provoke", count: pick(m.count) };
  return m;
}
function picturePerfect(m: Schemas["PicturePerfectLegalMove"]): Schemas["PicturePerfectMove"] {
  if (m.type === "bid") return { type: "bid", amount: pick(m.amount) };
  if (m.type === "offer") return m.price ? { type: "offer", guest: m.guest, price: pick(m.price) } : { type: "offer", guest: m.guest };
  return m;
}

function concrete(legal: LegalMoves): Move {
  switch (legal.game) {
    case "super_blatt": return superBlatt(choose(legal.moves));
    case "big_shot": return bigShot(choose(legal.moves));
    case "paparazzo": return paparazzo(choose(legal.moves));
    case "dice_party": return diceParty(choose(legal.moves));
    case "picture_perfect": return picturePerfect(choose(legal.moves));
  }
}

// Something of each game's own view, read through its type.
function describe(snap: Snapshot): string {
  switch (snap.game) {
    case "super_blatt": return `holdings ${JSON.stringify(snap.view.holdings[0])}, trend ${snap.view.trend.card}`;
    case "big_shot": return `${snap.view.lots.filter((lot) => lot.closed).length} lots closed, broker on ${snap.view.broker}`;
    case "paparazzo": return `${snap.view.owned[0]?.length ?? 0} photos owned, ${snap.view.totals.join("/")} totals`;
    case "dice_party": return `party ${JSON.stringify(snap.view.parties[0])}, winners ${snap.view.winners.join(",")}`;
    case "picture_perfect": return `${snap.view.guests.length} guests, round ${snap.view.round} of ${snap.view.rounds}`;
  }
}

const url = process.argv[2] ?? "http://127.0.0.1:8000";
const client = createClient<paths>({ baseUrl: url });

async function snapshot(id: string, token: string, since: number) {
  const { data, error } = await client.GET("/matches/{match_id}", {
    params: { path: { match_id: id }, query: { since, wait: 5 } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error) throw new Error(`GET /matches/${id}: ${error.code}`);
  return data;
}

async function legalMoves(id: string, token: string) {
  const { data, error } = await client.GET("/matches/{match_id}/legal-moves", {
    params: { path: { match_id: id } }, headers: { Authorization: `Bearer ${token}` },
  });
  if (error) throw new Error(`legal moves: ${error.code}`);
  return data;
}

async function play(game: Game): Promise<string> {
  const players = PLAYERS[game];
  const seats: Schemas["SeatSpec"][] = [{ name: "ts" }];
  for (let i = 1; i < players; i++) seats.push({ bot: "random" });
  const created = await client.POST("/matches", { body: { game, players, seats } });
  if (created.error) throw new Error(`create: ${created.error.code}`);
  const id = created.data.id;
  const token = created.data.seats[0]?.token;
  if (!token) throw new Error("seat 0 got no token");
  let version = 0;
  let moves = 0;
  let snap = await snapshot(id, token, version);
  while (snap.status === "active" || snap.status === "waiting") {
    version = snap.version;
    if (snap.view.you !== 0) throw new Error("the view is not seat 0's");
    if (snap.to_act.includes(0)) {
      const legal = await legalMoves(id, token);
      if (legal.moves.length) {
        const { error } = await client.POST("/matches/{match_id}/moves", {
          params: { path: { match_id: id } }, headers: { Authorization: `Bearer ${token}` },
          body: { move: concrete(legal), expected_version: legal.version },
        });
        if (error && !["stale_version", "not_your_turn"].includes(error.code ?? "")) throw new Error(`move: ${error.detail}`);
        if (!error) moves++;
      }
    }
    snap = await snapshot(id, token, version);
  }
  for (let i = 0; i < 100 && snap.status === "scoring"; i++) snap = await snapshot(id, token, snap.version);
  if (snap.status !== "finished" || !snap.result) throw new Error(`the match ended ${snap.status}`);
  return `${game}: ${moves} moves, scores ${snap.result.scores.join(" ")}, winners ${snap.result.winners.join(",")}; ${describe(snap)}`;
}

function isGame(name: string): name is Game {
  return name in PLAYERS;
}

for (const game of process.argv.slice(3)) {
  if (!isGame(game)) throw new Error(`unknown game ${game}`);
  console.log(await play(game));
}
