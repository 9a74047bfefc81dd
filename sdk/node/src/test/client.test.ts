// The client's side of the protocol (docs/protocol.md) against a scripted gateway on loopback:
// Hello, Pong, a Move per Turn, the same move again for a turn sent again after a reconnect,
// MatchEnded with and without its own fields (and once when told twice), and which endings are final.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { FinalError, play, type Logger } from "../client";
import { serviceClient, type BotMessage, type RefereeMessage } from "../proto";
import type { Bot, MatchResult, Turn } from "../types";

type Call = grpc.ServerDuplexStream<BotMessage, RefereeMessage>;
/** One stream's script: gets the call and the messages the bot sent so far. */
type Script = (call: Call, received: BotMessage[]) => Promise<void>;

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A gateway that plays `scripts` in turn, one per stream; returns its address and what each stream saw. */
async function gateway(scripts: Script[]): Promise<{ address: string; streams: BotMessage[][]; close(): void }> {
  const server = new grpc.Server();
  const streams: BotMessage[][] = [];
  const metadata: string[] = [];
  server.addService(serviceClient("BotGateway").service, {
    Connect(call: Call) {
      const received: BotMessage[] = [];
      streams.push(received);
      metadata.push(String(call.metadata.get("authorization")[0]));
      call.on("data", (message: BotMessage) => received.push(message));
      call.on("error", () => undefined);
      const script = scripts[streams.length - 1];
      if (script) void script(call, received);
      else fail(call, grpc.status.INTERNAL, "no more streams in this script");
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      (error ? reject(error) : resolve(bound))));
  return { address: `127.0.0.1:${port}`, streams, close: () => server.forceShutdown() };
}

async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const find = <K extends string>(received: BotMessage[], key: K, test: (m: any) => boolean = () => true) =>
  received.find((m) => key in m && test((m as any)[key])) as any;

function fail(call: Call, code: grpc.status, details: string): void {
  call.emit("error", { code, details });
}

const started = (matchId: string) => ({ match_started: {
  match_id: matchId, game: "crazy_eights", options_json: "{}", seat: 0, num_players: 2,
  players: ["me", "house:random"], move_deadline_ms: 2000, time_bank_ms: 30000, tournament_id: "",
} });
const turn = (matchId: string, turnId: string, forced: { turn_id: string; action: string }[] = []) => ({ turn: {
  match_id: matchId, turn_id: turnId, seat: 0, observation_json: '{"seat": 0, "num_players": 2, "to_act": [0]}',
  legal_actions: ["draw", "play 5H", "play 9H"], deadline_ms: 2000, time_bank_ms: 30000, last_move_latency_ms: 0,
  sample_state_json: "", forced,
} });

test("plays across a reconnect: pong, moves, a turn sent again, MatchEnded old and new", { timeout: 20_000 }, async () => {
  const turns: Turn[] = [];
  const results: MatchResult[] = [];
  const bot: Bot = {
    maxMatches: 2,
    games: ["crazy_eights"],
    // An action id for turn 3, an index (0, which protobuf must still send) for turn 5.
    act(t) { turns.push(t); return t.turnId === 3 ? "play 5H" : 0; },
    onMatchEnd(result) { results.push(result); },
  };
  const server = await gateway([
    async (call, received) => {
      await until(() => find(received, "hello"), "hello");
      call.write({ welcome: { bot_id: "1", bot_name: "me", max_matches: 2 } });
      call.write(started("m1"));
      call.write({ ping: { nonce: "7" } });
      call.write(turn("m1", "3"));
      await until(() => find(received, "move"), "the first move");
      await until(() => find(received, "pong"), "the pong");
      fail(call, grpc.status.UNAVAILABLE, "the connection dropped");
    },
    async (call, received) => {
      await until(() => find(received, "hello"), "hello again");
      call.write({ welcome: { bot_id: "1", bot_name: "me", max_matches: 2 } });
      call.write(started("m1"));     // the gateway announces the match again on a new stream
      call.write(turn("m1", "3"));   // and sends the turn again: it may not have arrived
      call.write(turn("m1", "5", [{ turn_id: "4", action: "draw" }]));  // turn 4 was forced
      await until(() => find(received, "move", (m) => m.turn_id === "5"), "the move of turn 5");
      await until(() => (received.filter((m) => "move" in m).length === 2 ? true : undefined), "both moves");
      // An older server's MatchEnded, then a self-contained one for a match never started here.
      call.write({ match_ended: { match_id: "m1", scores: [0, -9], ranks: [1, 2], forfeited: false, reason: "finished" } });
      const m2 = { match_ended: { match_id: "m2", scores: [-3, 0], ranks: [2, 1], forfeited: false, reason: "finished",
                                  game: "durak", seat: 1, players: ["house:heuristic", "me"], tournament_id: "4" } };
      call.write(m2);
      call.write(m2);  // told again (a replaced stream handed it back): onMatchEnd runs once
      call.write({ match_ended: { ...m2.match_ended, match_id: "m3" } });
      await until(() => (results.length === 3 ? true : undefined), "three results");
      call.write({ error: { code: "replaced", message: "a newer connection with this token took over" } });
      fail(call, grpc.status.ABORTED, "replaced");
    },
  ]);
  try {
    await assert.rejects(play(bot, { address: server.address, token: "secret", minBackoffMs: 10, maxAttempts: 3,
                                   logger: quiet }),
                         (error: unknown) => error instanceof FinalError && /^replaced: /.test(error.message));
  } finally {
    server.close();
  }
  const [first, second] = server.streams;
  const hello = find(first, "hello").hello;
  assert.equal(hello.max_matches, 2);
  assert.deepEqual(hello.games, ["crazy_eights"]);
  assert.match(hello.client, /^arena-sdk-node\//);
  // A bot that says nothing about challenges declines every one.
  assert.deepEqual(hello.challenges, { accept: false, games: [], from_bots: [], max_at_once: 1 });
  assert.equal(find(first, "pong").pong.nonce, "7");
  const move3 = find(first, "move").move;
  assert.deepEqual([move3.match_id, move3.turn_id, move3.action], ["m1", "3", "play 5H"]);
  // Turn 3 was decided once and its move sent again; turn 5 was decided on the new stream.
  assert.deepEqual(turns.map((t) => t.turnId), [3, 5]);
  assert.deepEqual(turns.map((t) => t.forced), [[], [{ turnId: 4, action: "draw" }]]);
  assert.equal(hello.every_decision, false, "single-action decisions are applied by the referee unless asked");
  assert.equal(hello.ok_implied, true, "the kit asks the gateway to leave out OK results");
  assert.equal(turns[0].match.game, "crazy_eights");
  assert.deepEqual(turns[0].observation.to_act, [0]);
  const moves = second.filter((m) => "move" in m).map((m: any) => [m.move.turn_id, m.move.choice, m.move.action ?? m.move.index]);
  assert.deepEqual(moves, [["3", "action", "play 5H"], ["5", "index", 0]]);
  assert.deepEqual(results.map((r) => [r.match.matchId, r.match.game, r.match.seat, r.rank, r.match.tournamentId]),
                   [["m1", "crazy_eights", 0, 1, ""], ["m2", "durak", 1, 1, "4"], ["m3", "durak", 1, 1, "4"]]);
  assert.deepEqual(results[1].match.players, ["house:heuristic", "me"]);
});

const endings: Array<[string, Script]> = [
  ["replaced, then ABORTED", async (call) => {
    call.write({ error: { code: "replaced", message: "newer" } }); fail(call, grpc.status.ABORTED, "replaced"); }],
  ["replaced, then the stream ends (older servers)", async (call) => {
    call.write({ error: { code: "replaced", message: "newer" } }); call.end(); }],
  ["revoked, then UNAUTHENTICATED", async (call) => {
    call.write({ error: { code: "revoked", message: "by an admin" } }); fail(call, grpc.status.UNAUTHENTICATED, "revoked"); }],
  ["UNAUTHENTICATED", async (call) => fail(call, grpc.status.UNAUTHENTICATED, "missing, unknown or revoked token")],
  ["PERMISSION_DENIED", async (call) => fail(call, grpc.status.PERMISSION_DENIED, "no")],
  ["INVALID_ARGUMENT", async (call) => fail(call, grpc.status.INVALID_ARGUMENT, "the first message must be Hello")],
];

for (const [name, script] of endings) {
  test(`final, no reconnect: ${name}`, { timeout: 20_000 }, async () => {
    const server = await gateway([async (call, received) => {
      await until(() => find(received, "hello"), "hello");
      call.write({ welcome: { bot_id: "1", bot_name: "me", max_matches: 1 } });
      await script(call, received);
    }, async (call) => fail(call, grpc.status.INTERNAL, "a reconnect must not happen")]);
    try {
      await assert.rejects(play({ act: () => 0 }, { address: server.address, token: "t", minBackoffMs: 10, maxAttempts: 3,
                                                      logger: quiet }),
                           (error: unknown) => error instanceof FinalError && !/gave up/.test(error.message));
    } finally {
      server.close();
    }
    assert.equal(server.streams.length, 1);
  });
}

test("other failures are retried with backoff until maxAttempts", async () => {
  const drop: Script = async (call) => fail(call, grpc.status.ABORTED, "no GatewayError: not final");
  const server = await gateway([drop, drop, drop]);
  try {
    await assert.rejects(play({ act: () => 0 }, { address: server.address, token: "t", minBackoffMs: 5, maxAttempts: 3,
                                                  logger: quiet }), /gave up after 3 attempts/);
  } finally {
    server.close();
  }
  assert.equal(server.streams.length, 3);
});

test("no token is final at once", async () => {
  await assert.rejects(play({ act: () => 0 }, { token: "", logger: quiet }), /no token/);
});

test("a failing act or an unreadable turn costs only that turn", { timeout: 20_000 }, async () => {
  const errors: string[] = [];
  const bot: Bot = {
    act(t) {
      if (t.turnId === 1) throw new Error("a bug in the bot");
      return "draw";
    },
  };
  const server = await gateway([async (call, received) => {
    await until(() => find(received, "hello"), "hello");
    call.write({ welcome: { bot_id: "1", bot_name: "me", max_matches: 1 } });
    call.write(started("m1"));
    call.write(turn("m1", "1"));
    call.write({ turn: { ...turn("m1", "2").turn, observation_json: "{not json" } });
    call.write(turn("m1", "4"));
    await until(() => find(received, "move"), "a move");
    call.write({ error: { code: "replaced", message: "newer" } });
    call.end();
  }]);
  try {
    await assert.rejects(play(bot, { address: server.address, token: "t", maxAttempts: 1,
                                     logger: { ...quiet, error: (m) => errors.push(m) } }), /^FinalError: replaced/);
  } finally {
    server.close();
  }
  const moves = server.streams[0].filter((m) => "move" in m).map((m: any) => [m.move.turn_id, m.move.action]);
  assert.deepEqual(moves, [["4", "draw"]]);
  assert.ok(errors.some((e) => e.includes("act() failed in match m1") && e.includes("a bug in the bot")), errors.join("\n"));
  assert.ok(errors.some((e) => e.includes("could not answer match m1 turn 2")), errors.join("\n"));
});
