// A bot account in TypeScript with the client generated from openapi.yaml (docs/bot-accounts-js.md): it
// registers, holds its event stream (Server-Sent Events over fetch, resumed with Last-Event-ID), accepts the
// challenges of Super-Blatt, and at each turn plays a random legal move of its seat; it stops after MATCHES
// matches have finished.
//
//   npm ci && npm run generate && npm run build && node dist/bot.js http://127.0.0.1:8000 NAME [MATCHES]
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type BotEvent = components["schemas"]["BotEvent"];
type Move = components["schemas"]["SuperBlattMove"];

const [url = "http://127.0.0.1:8000", name = "ts-bot", wanted = "1"] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl: url });
const seats = new Map<string, string>(); // match id -> the seat token of its match.started
let finished = 0;

function field(data: { [key: string]: unknown }, key: string): string {
  const value = data[key];
  if (typeof value !== "string" && typeof value !== "number") throw new Error(`an event without ${key}`);
  return String(value);
}

async function register(): Promise<string> {
  const { data, error } = await client.POST("/bots", { body: { name, games: ["super_blatt"] } });
  if (error) throw new Error(`POST /bots: ${error.code}`);
  return data.token;
}

// The bot's events, for as long as it runs: a dropped stream is opened again from the last id seen.
async function* events(token: string): AsyncGenerator<BotEvent> {
  let last = "0";
  for (;;) {
    try {
      const response = await fetch(`${url}/bots/me/events`, {
        headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream", "Last-Event-ID": last },
      });
      if (!response.ok || !response.body) throw new Error(`the event stream answered ${response.status}`);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      let frame = new Map<string, string>();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        buffer += decoder.decode(chunk.value, { stream: true });
        for (let cut = buffer.indexOf("\n"); cut >= 0; cut = buffer.indexOf("\n")) {
          const line = buffer.slice(0, cut).replace(/\r$/, "");
          buffer = buffer.slice(cut + 1);
          const colon = line.indexOf(":");
          if (line && colon > 0) frame.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
          if (line) continue;
          const data = frame.get("data");
          const id = frame.get("id");
          frame = new Map();
          if (data === undefined || id === undefined) continue;
          last = id;
          const event: BotEvent = JSON.parse(data);
          yield event;
        }
      }
    } catch (error) {
      console.error(`event stream dropped (${String(error)}); reconnecting`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function play(matchId: string, version: number): Promise<void> {
  const token = seats.get(matchId);
  if (!token) return;
  const auth = { Authorization: `Bearer ${token}` };
  const legal = await client.GET("/matches/{match_id}/legal-moves", { params: { path: { match_id: matchId } },
                                                                         headers: auth });
  if (legal.error || legal.data.game !== "super_blatt" || legal.data.version !== version) return;
  const moves: Move[] = legal.data.moves; // Super-Blatt's legal moves are moves as they are sent
  const move = moves[Math.floor(Math.random() * moves.length)];
  if (!move) return;
  const { error } = await client.POST("/matches/{match_id}/moves", {
    params: { path: { match_id: matchId } }, headers: auth, body: { move, expected_version: version },
  });
  if (error && !["stale_version", "not_your_turn", "match_over"].includes(error.code ?? "")) {
    console.error(`${matchId}: ${error.code}: ${error.detail}`);
  }
}

const token = await register();
console.log(`bot ${name} registered; online`);
for await (const event of events(token)) {
  const data = event.data;
  if (event.type === "challenge") {
    const id = field(data, "id");
    const path = { params: { path: { challenge_id: id } }, headers: { Authorization: `Bearer ${token}` } };
    if (field(data, "game") === "super_blatt") await client.POST("/bots/me/challenges/{challenge_id}/accept", path);
    else await client.POST("/bots/me/challenges/{challenge_id}/decline", { ...path, body: { reason: "Super-Blatt only" } });
  } else if (event.type === "match.started") {
    seats.set(field(data, "match_id"), field(data, "token"));
  } else if (event.type === "turn") {
    await play(field(data, "match_id"), Number(field(data, "version")));
  } else if (event.type === "match.finished") {
    seats.delete(field(data, "match_id"));
    console.log(`finished ${field(data, "match_id")}: ${field(data, "status")}`);
    if (++finished >= Number(wanted)) process.exit(0);
  }
}
