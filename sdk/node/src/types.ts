/**
 * The values a bot sees: a Match it has a seat in, each Turn it must decide, and how the match
 * ended (MatchResult). They mirror the protocol's MatchStarted, Turn and MatchEnded
 * (docs/protocol.md) with the JSON fields already parsed.
 */

/** Every observation carries these keys (docs/games/README.md); each game adds its own. */
export interface BaseObservation {
  /** Your seat, 0 … num_players - 1, clockwise. */
  seat: number;
  num_players: number;
  /** The seats that must decide now (several for simultaneous decisions). */
  to_act: number[];
  /** Your cards, where the game has a hand. */
  hand?: string[];
  [key: string]: unknown;
}

/** A match this bot has a seat in. */
export interface Match {
  matchId: string;
  /** Game name, e.g. "crazy_eights" (docs/games/<game>.md). "" if the server never said. */
  game: string;
  /** The game's options; {} means the rulebook's defaults. */
  options: Record<string, unknown>;
  seat: number;
  numPlayers: number;
  /** Bot names by seat (public). */
  players: string[];
  moveDeadlineMs: number;
  timeBankMs: number;
  /** Empty for an unrated challenge. */
  tournamentId: string;
}

/** One decision: return one of `legalActions` (or its index) from `Bot.act`. */
export interface Turn<O extends BaseObservation = BaseObservation> {
  match: Match;
  /** Unique and increasing within the match, not consecutive for you. */
  turnId: number;
  /** Only what your seat may know now. */
  observation: O;
  /** The action ids you may answer with, sorted. */
  legalActions: string[];
  /** Your time for this move; beyond it the bank is used. The server's clock counts. */
  deadlineMs: number;
  /** What is left of the match's overage bank. */
  timeBankMs: number;
  /** What your previous move in this match took, measured by the server. */
  lastMoveLatencyMs: number;
  /** Only with `Bot.wantSampleState`: a full state your seat cannot tell from the true one. */
  sampleState?: Record<string, unknown>;
  /**
   * Your decisions since your previous turn of this match that had a single legal action: the
   * referee applied them without asking (unless `Bot.everyDecision`), in order.
   */
  forced: { turnId: number; action: string }[];
}

/** How a match ended for this bot. Rate yourself by `rank`: it counts forfeits. */
export interface MatchResult {
  match: Match;
  /** By seat; higher is better. */
  scores: number[];
  /** By seat; 1 is best, ties share a rank, forfeited seats last. */
  ranks: number[];
  /** Your rank (ranks[match.seat]). */
  rank: number;
  forfeited: boolean;
  /** "finished" or "turn_cap". */
  reason: string;
}

/** An answer: an action id from `legalActions`, or its 0-based index there. */
export type Action = string | number;

/**
 * Which challenges (`Arena.Challenge`) from other bots a bot accepts. Your own challenges and
 * the admin's need no consent; a challenge that seats you without it fails at once.
 */
export interface Challenges {
  /** Accept challenges at all. Default false: decline every one. */
  accept: boolean;
  /** Only in these games (empty or absent = every game you play). */
  games?: string[];
  /** Only from these bots, by name (empty or absent = any bot). */
  fromBots?: string[];
  /** Challenges at once, on top of `maxMatches` (the server may cap it). Default 1. */
  maxAtOnce?: number;
}

/**
 * What you implement. Only `act` is required.
 *
 * `act` may return a Promise: turns of different matches are decided concurrently, so a slow
 * (awaiting) decision in one match does not hold up the others. CPU-bound search blocks the
 * event loop for every match: move it to a worker thread (node:worker_threads).
 */
export interface Bot {
  /** Game names you play, on the ladder and anywhere you are seated (empty or absent = every game). */
  games?: string[];
  /** Table sizes you play on the ladder (empty or absent = 2 players). */
  tableSizes?: number[];
  /** Matches at once; the server may grant fewer. Default 1. */
  maxMatches?: number;
  /** Ask for `Turn.sampleState` on every turn (for search; costs bandwidth). */
  wantSampleState?: boolean;
  /** Which challenges from other bots you accept; absent = decline every one. */
  challenges?: Challenges;
  /**
   * Be asked for decisions with a single legal action too. Default false: the referee applies
   * them itself, without a round trip, and lists them in your next `Turn.forced`.
   */
  everyDecision?: boolean;
  /** Return one of `turn.legalActions`, or its index. */
  act(turn: Turn): Action | Promise<Action>;
  /** Called before the first turn of a match. */
  onMatchStart?(match: Match): void | Promise<void>;
  /** Called when a match you played is over. */
  onMatchEnd?(result: MatchResult): void | Promise<void>;
}
