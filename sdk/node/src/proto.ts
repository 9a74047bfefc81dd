/**
 * Loads the arena protocol (arena.v1) from the kit's copy of the .proto files at run time with
 * @grpc/proto-loader: nothing is generated. The kit's proto/ is a copy of the repository's
 * proto/ (`npm run sync-proto`), so the kit also works once published on its own.
 *
 * Field names keep the .proto spelling (snake_case), 64-bit integers arrive as strings, enums
 * as their names, and `body` names the member of a oneof that is set.
 */
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

/** The kit's proto/ folder (next to dist/ and src/). */
export const PROTO_DIR = path.resolve(__dirname, "..", "proto");

const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true, longs: String, enums: String, defaults: true, arrays: true, oneofs: true,
  includeDirs: [PROTO_DIR],
};

let loaded: grpc.GrpcObject | undefined;

/** The arena.v1 package: `arena().BotGateway`, `arena().Arena`, `arena().Rules` (client classes). */
export function arena(): grpc.GrpcObject {
  if (!loaded) {
    const files = ["arena/v1/gateway.proto", "arena/v1/arena.proto", "arena/v1/rules.proto"];
    const definition = protoLoader.loadSync(files, LOADER_OPTIONS);
    loaded = (grpc.loadPackageDefinition(definition).arena as grpc.GrpcObject).v1 as grpc.GrpcObject;
  }
  return loaded;
}

/** A client class of arena.v1 by service name. */
export function serviceClient(name: "BotGateway" | "Arena" | "Rules"): grpc.ServiceClientConstructor {
  return arena()[name] as grpc.ServiceClientConstructor;
}

// The wire messages of gateway.proto, as proto-loader hands them over (see the options above).
// Fields a server of an older protocol does not send arrive with their default values.

export interface WireMatchStarted {
  match_id: string; game: string; options_json: string; seat: number; num_players: number;
  players: string[]; move_deadline_ms: number; time_bank_ms: number; tournament_id: string;
}
export interface WireTurn {
  match_id: string; turn_id: string; seat: number; observation_json: string; legal_actions: string[];
  deadline_ms: number; time_bank_ms: number; last_move_latency_ms: number; sample_state_json: string;
  forced?: { turn_id: string; action: string }[];
}
export interface WireMoveResult {
  match_id: string; turn_id: string; code: string; applied_action: string; strikes: number;
  detail: string; latency_ms: number;
}
export interface WireMatchEnded {
  match_id: string; scores: number[]; ranks: number[]; forfeited: boolean; reason: string;
  // Added with the self-contained MatchEnded; absent (undefined) with an older copy of the protos.
  game?: string; seat?: number; players?: string[]; tournament_id?: string;
}
export interface RefereeMessage {
  body?: "welcome" | "match_started" | "turn" | "move_result" | "match_ended" | "ping" | "error";
  welcome?: { bot_id: string; bot_name: string; max_matches: number };
  match_started?: WireMatchStarted;
  turn?: WireTurn;
  move_result?: WireMoveResult;
  match_ended?: WireMatchEnded;
  ping?: { nonce: string };
  error?: { code: string; message: string };
}
export interface WireMove {
  match_id: string; turn_id: string; action?: string; index?: number;
}
export interface WireChallengePolicy {
  accept: boolean; games: string[]; from_bots: string[]; max_at_once: number;
}
export type BotMessage =
  | { hello: { games: string[]; max_matches: number; client: string; want_sample_state: boolean;
      challenges: WireChallengePolicy; every_decision: boolean; table_sizes: number[];
      ok_implied: boolean } }
  | { move: WireMove }
  | { pong: { nonce: string } };
