/**
 * The connection to the arena's BotGateway: one stream per bot process, many matches on it.
 *
 *     import { run } from "arena-bot-kit";
 *     run({ act: (turn) => turn.legalActions[0] });  // token from ARENA_BOT_TOKEN
 *
 * `play` keeps the stream open, answers every Turn with the bot's Move and every Ping with a
 * Pong, and reconnects with exponential backoff and jitter when the connection drops. Errors
 * that retrying cannot fix end it with a FinalError: a refused token or request
 * (UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT, FAILED_PRECONDITION), or a final
 * GatewayError (`revoked`, or `replaced` by a newer process with the same token, which
 * newer servers follow with UNAUTHENTICATED or ABORTED). The token never appears in logs.
 */
import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import { serviceClient, type BotMessage, type RefereeMessage, type WireMatchEnded, type WireMove,
         type WireChallengePolicy, type WireTurn } from "./proto";
import type { Action, Bot, Challenges, Match, MatchResult, Turn } from "./types";

export const SDK_VERSION = "arena-sdk-node/0.1";

/** gRPC status codes after which reconnecting cannot help: the token or the request is wrong. */
export const FINAL_STATUS: ReadonlySet<grpc.status> = new Set([
  grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT,
  grpc.status.FAILED_PRECONDITION,
]);
/** GatewayError codes that end the bot for good: reconnecting would fight the newer process
 * (`replaced`) or meet a dead token (`revoked`). */
export const FINAL_GATEWAY_ERRORS: ReadonlySet<string> = new Set(["revoked", "replaced"]);

/** The gateway refused the bot for a reason retrying cannot fix. */
export class FinalError extends Error {
  override name = "FinalError";
}

/** Where log lines go. The default writes timestamped lines to stderr. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

function stamp(level: string): (message: string) => void {
  return (message) => process.stderr.write(`${new Date().toISOString()} arena.bot ${level} ${message}\n`);
}

export const stderrLogger: Logger = { info: stamp("INFO"), warn: stamp("WARNING"), error: stamp("ERROR") };

/**
 * Where and who. Every field has a default from the environment:
 * `address` ARENA_ADDRESS (else 127.0.0.1:50051), `token` ARENA_BOT_TOKEN, `tlsCa`
 * ARENA_TLS_CA (a PEM file of the server's CA: TLS on), `tls` ARENA_TLS=1 (TLS with the
 * system's roots). With none of the TLS settings the connection is plaintext.
 */
export interface ConnectionOptions {
  address?: string;
  token?: string;
  tlsCa?: string;
  /** The CA certificate itself (PEM), instead of a file. */
  rootCertificates?: Buffer;
  tls?: boolean;
  /** First reconnect delay (doubling up to maxBackoffMs, with jitter). Default 500 ms. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Give up after this many failed connections in a row; default: never. */
  maxAttempts?: number;
  logger?: Logger;
}

interface Settings {
  address: string;
  token: string;
  credentials: grpc.ChannelCredentials;
  minBackoffMs: number;
  maxBackoffMs: number;
  maxAttempts: number;
  log: Logger;
}

/** The server's address from the options, else ARENA_ADDRESS, else 127.0.0.1:50051. */
export function addressFrom(options: Pick<ConnectionOptions, "address"> = {}): string {
  return options.address || process.env.ARENA_ADDRESS || "127.0.0.1:50051";
}

/** Channel credentials from the TLS options (defaults ARENA_TLS_CA, ARENA_TLS); plaintext without. */
export function credentialsFrom(options: Pick<ConnectionOptions, "tlsCa" | "rootCertificates" | "tls"> = {}):
    grpc.ChannelCredentials {
  const caFile = options.tlsCa ?? (process.env.ARENA_TLS_CA || undefined);
  const roots = options.rootCertificates ?? (caFile ? readFileSync(caFile) : undefined);
  const tls = roots !== undefined || (options.tls ?? process.env.ARENA_TLS === "1");
  // No roots with TLS on: grpc-js trusts the system's (public) roots.
  return tls ? grpc.credentials.createSsl(roots ?? null) : grpc.credentials.createInsecure();
}

function settingsFrom(options: ConnectionOptions): Settings {
  return {
    address: addressFrom(options),
    token: options.token ?? process.env.ARENA_BOT_TOKEN ?? "",
    credentials: credentialsFrom(options),
    minBackoffMs: options.minBackoffMs ?? 500,
    maxBackoffMs: options.maxBackoffMs ?? 30_000,
    maxAttempts: options.maxAttempts ?? Infinity,
    log: options.logger ?? stderrLogger,
  };
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // HTTP/2 pings keep NAT and proxies from dropping an idle stream; the server allows one
  // every 5 s at most (docs/protocol.md, Limits).
  "grpc.keepalive_time_ms": 20_000,
  "grpc.keepalive_permit_without_calls": 1,
  // The server sends messages up to 4 × its 1 MiB receive limit.
  "grpc.max_receive_message_length": 16 * 1024 * 1024,
};

/** How one stream ended. */
interface Outcome {
  welcomed: boolean;
  status: grpc.StatusObject;
  gatewayError?: { code: string; message: string };
}

function statusName(code: grpc.status): string {
  return grpc.status[code] ?? String(code);
}

/**
 * Plays as `bot` until `signal` aborts (resolves) or the gateway refuses the bot for good
 * (rejects with FinalError). Match state outlives a dropped stream: after a reconnect the
 * gateway sends the pending turns again, and a turn already answered is answered again
 * with the same move (the server discards the replay).
 */
export async function play(bot: Bot, options: ConnectionOptions = {}, signal?: AbortSignal): Promise<void> {
  const settings = settingsFrom(options);
  if (!settings.token) throw new FinalError("no token: set ARENA_BOT_TOKEN or pass { token }");
  const player = new Player(bot, settings.log);
  let attempt = 0;
  while (!signal?.aborted) {
    const outcome = await player.session(settings, signal);
    if (signal?.aborted) return;
    const { status, gatewayError } = outcome;
    if (gatewayError && FINAL_GATEWAY_ERRORS.has(gatewayError.code)) {
      // Whatever status follows (UNAUTHENTICATED, ABORTED, or OK from older servers).
      throw new FinalError(`${gatewayError.code}: ${gatewayError.message}`);
    }
    if (FINAL_STATUS.has(status.code)) throw new FinalError(`${statusName(status.code)}: ${status.details}`);
    settings.log.warn(`connection lost: ${statusName(status.code)} ${status.details}`);
    attempt = outcome.welcomed ? 1 : attempt + 1;
    if (attempt >= settings.maxAttempts) throw new FinalError(`gave up after ${attempt} attempts`);
    const delay = Math.min(settings.maxBackoffMs, settings.minBackoffMs * 2 ** (attempt - 1))
      * (0.5 + Math.random() / 2);  // jitter: many bots must not reconnect in lockstep
    settings.log.info(`reconnecting in ${(delay / 1000).toFixed(1)} s`);
    await sleep(delay, signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** A match and whether its onMatchStart has finished (turns wait for it). */
interface MatchState {
  match: Match;
  ready: Promise<void>;
  /** Moves sent, by turn id, to answer a turn sent again after a reconnect. */
  answers: Map<string, WireMove>;
  deciding: Set<string>;
}

/** Matches whose end the bot was told, remembered to tell it once each. */
const ENDED_MEMORY = 4096;

/** The bot's side of the protocol, across reconnects. */
class Player {
  private readonly matches = new Map<string, MatchState>();
  /** The matches whose end the bot was told, oldest first: a MatchEnded a replaced stream
   * handed back to the newer one may have reached the bot already (onMatchEnd runs once). */
  private readonly endedIds = new Set<string>();
  private call: grpc.ClientDuplexStream<BotMessage, RefereeMessage> | undefined;

  constructor(private readonly bot: Bot, private readonly log: Logger) {}

  /** One stream, from Hello to its status. */
  session(settings: Settings, signal?: AbortSignal): Promise<Outcome> {
    const Gateway = serviceClient("BotGateway");
    const client = new Gateway(settings.address, settings.credentials, CHANNEL_OPTIONS);
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${settings.token}`);
    const call = (client as unknown as {
      Connect(metadata: grpc.Metadata): grpc.ClientDuplexStream<BotMessage, RefereeMessage>;
    }).Connect(metadata);
    this.call = call;
    const outcome: Partial<Outcome> & { welcomed: boolean } = { welcomed: false };
    return new Promise((resolve) => {
      let readDone = false;
      let settled = false;
      const settle = (): void => {
        if (settled || !outcome.status) return;
        settled = true;
        signal?.removeEventListener("abort", cancel);
        if (this.call === call) this.call = undefined;
        client.close();
        resolve(outcome as Outcome);
      };
      const cancel = (): void => call.cancel();
      call.on("data", (message: RefereeMessage) => {
        try {
          this.handle(message, outcome);
        } catch (error) {  // an unreadable message must not end the process
          this.log.error(`could not handle a ${message.body} message: ${describe(error)}`);
        }
      });
      call.on("error", () => undefined);  // the status says it all
      call.on("end", () => { readDone = true; settle(); });
      call.on("status", (status: grpc.StatusObject) => {
        outcome.status = status;
        // Messages read before the status (a GatewayError) must be handled first: wait
        // for the end of the stream, but not for ever.
        if (readDone) settle(); else setTimeout(settle, 500);
      });
      signal?.addEventListener("abort", cancel, { once: true });
      call.write({ hello: {
        games: [...(this.bot.games ?? [])], max_matches: Math.max(1, this.bot.maxMatches ?? 1),
        client: SDK_VERSION, want_sample_state: Boolean(this.bot.wantSampleState),
        challenges: challengePolicy(this.bot.challenges),
        every_decision: Boolean(this.bot.everyDecision),
        ok_implied: true,  // an OK result tells the bot nothing it acts on: the gateway leaves it out
        table_sizes: [...(this.bot.tableSizes ?? [])],
      } });
    });
  }

  private send(message: BotMessage): void {
    const call = this.call;
    if (call && call.writable) call.write(message);
    // Else no stream now: the gateway sends the turn again after the reconnect.
  }

  private handle(message: RefereeMessage, outcome: { welcomed: boolean; gatewayError?: Outcome["gatewayError"] }): void {
    switch (message.body) {
      case "welcome": {
        const welcome = message.welcome!;
        outcome.welcomed = true;
        this.log.info(`connected as ${welcome.bot_name} (up to ${welcome.max_matches} matches at once)`);
        break;
      }
      case "match_started": {
        const started = message.match_started!;
        if (this.matches.has(started.match_id)) break;  // sent again after a reconnect
        const match: Match = {
          matchId: started.match_id, game: started.game, options: parseJson(started.options_json) ?? {},
          seat: started.seat, numPlayers: started.num_players, players: [...started.players],
          moveDeadlineMs: started.move_deadline_ms, timeBankMs: started.time_bank_ms,
          tournamentId: started.tournament_id,
        };
        const ready = this.hook("onMatchStart", () => this.bot.onMatchStart?.(match));
        this.matches.set(match.matchId, { match, ready, answers: new Map(), deciding: new Set() });
        break;
      }
      case "turn": {
        const turn = message.turn!;
        this.answer(turn).catch((error) => this.log.error(
          `could not answer match ${turn.match_id} turn ${turn.turn_id}: ${describe(error)}`));
        break;
      }
      case "move_result": {
        const result = message.move_result!;
        if (result.code !== "OK") {
          this.log.warn(`match ${result.match_id} turn ${result.turn_id}: ${result.code} (${result.detail}), `
            + `strikes ${result.strikes}`);
        }
        break;
      }
      case "match_ended":
        this.ended(message.match_ended!);
        break;
      case "ping":
        this.send({ pong: { nonce: message.ping!.nonce } });
        break;
      case "error": {
        const error = message.error!;
        this.log.error(`gateway: ${error.code}: ${error.message}`);
        outcome.gatewayError = error;
        break;
      }
    }
  }

  private async answer(wire: WireTurn): Promise<void> {
    let state = this.matches.get(wire.match_id);
    if (!state) {
      // A turn of a match announced on an earlier stream that this process never saw.
      const match: Match = { matchId: wire.match_id, game: "", options: {}, seat: wire.seat, numPlayers: 0,
                             players: [], moveDeadlineMs: 0, timeBankMs: 0, tournamentId: "" };
      state = { match, ready: Promise.resolve(), answers: new Map(), deciding: new Set() };
      this.matches.set(wire.match_id, state);
    }
    const sent = state.answers.get(wire.turn_id);
    if (sent) return this.send({ move: sent });
    if (state.deciding.has(wire.turn_id)) return;  // its move goes out on the live stream
    state.deciding.add(wire.turn_id);
    try {
      await state.ready;
      const turn: Turn = {
        match: state.match, turnId: Number(wire.turn_id), observation: JSON.parse(wire.observation_json),
        legalActions: [...wire.legal_actions], deadlineMs: wire.deadline_ms, timeBankMs: wire.time_bank_ms,
        lastMoveLatencyMs: wire.last_move_latency_ms,
        sampleState: wire.sample_state_json ? JSON.parse(wire.sample_state_json) : undefined,
        forced: (wire.forced ?? []).map((f) => ({ turnId: Number(f.turn_id), action: f.action })),
      };
      let choice: Action;
      try {
        choice = await this.bot.act(turn);
      } catch (error) {
        // A bug in the bot must not kill its other matches; this turn times out instead.
        this.log.error(`act() failed in match ${wire.match_id}: ${describe(error)}; sending nothing for this turn`);
        return;
      }
      const move: WireMove = typeof choice === "number"
        ? { match_id: wire.match_id, turn_id: wire.turn_id, index: choice }
        : { match_id: wire.match_id, turn_id: wire.turn_id, action: String(choice) };
      state.answers.set(wire.turn_id, move);
      this.send({ move });
    } finally {
      state.deciding.delete(wire.turn_id);
    }
  }

  private ended(ended: WireMatchEnded): void {
    const state = this.matches.get(ended.match_id);
    this.matches.delete(ended.match_id);
    if (this.endedIds.has(ended.match_id)) return;  // told again on a newer stream
    this.endedIds.add(ended.match_id);
    if (this.endedIds.size > ENDED_MEMORY) {
      const oldest = this.endedIds.values().next();
      if (!oldest.done) this.endedIds.delete(oldest.value);
    }
    // A newer server makes MatchEnded self-contained (game, seat, players, tournament);
    // prefer its fields, and fall back on the MatchStarted this process saw.
    const known = state?.match;
    const selfContained = Boolean(ended.game);
    if (!known && !selfContained) return;  // nothing says which seat was ours
    const match: Match = {
      matchId: ended.match_id,
      game: ended.game || known?.game || "",
      options: known?.options ?? {},
      seat: selfContained ? ended.seat ?? 0 : known!.seat,
      numPlayers: known?.numPlayers || ended.ranks.length,
      players: ended.players?.length ? [...ended.players] : known?.players ?? [],
      moveDeadlineMs: known?.moveDeadlineMs ?? 0,
      timeBankMs: known?.timeBankMs ?? 0,
      tournamentId: selfContained ? ended.tournament_id ?? "" : known?.tournamentId ?? "",
    };
    const result: MatchResult = {
      match, scores: [...ended.scores], ranks: [...ended.ranks], rank: ended.ranks[match.seat],
      forfeited: ended.forfeited, reason: ended.reason,
    };
    void (state?.ready ?? Promise.resolve()).then(() => this.hook("onMatchEnd", () => this.bot.onMatchEnd?.(result)));
  }

  /** Runs an optional hook; its failure is logged, never thrown into the stream. */
  private async hook(name: string, call: () => void | Promise<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.log.error(`${name}() failed: ${describe(error)}`);
    }
  }
}

/** The Hello's ChallengePolicy for a bot's `challenges` (none: decline every challenge). */
export function challengePolicy(challenges: Challenges | undefined): WireChallengePolicy {
  return {
    accept: Boolean(challenges?.accept), games: [...(challenges?.games ?? [])],
    from_bots: [...(challenges?.fromBots ?? [])], max_at_once: Math.max(1, challenges?.maxAtOnce ?? 1),
  };
}

function parseJson(text: string): Record<string, unknown> | undefined {
  return text ? JSON.parse(text) : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.stack ?? error.message : String(error);
}

/**
 * Connects and plays until interrupted (Ctrl-C or SIGTERM ends it cleanly). A FinalError is
 * logged and sets the exit code to 1.
 */
export async function run(bot: Bot, options: ConnectionOptions = {}): Promise<void> {
  const log = options.logger ?? stderrLogger;
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await play(bot, options, stop.signal);
  } catch (error) {
    if (!(error instanceof FinalError)) throw error;
    log.error(`giving up: ${error.message}`);
    process.exitCode = 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
