/**
 * Crazy 8s (`crazy_eights`): its observation and action ids as types and helpers.
 * The rules and every field: docs/games/crazy_eights.md.
 */
import type { Suit } from "../cards";
import type { BaseObservation, Turn } from "../types";

export const GAME = "crazy_eights";

/** The options of a match (docs/games/crazy_eights.md, Options). */
export interface CrazyEightsOptions {
  decks: 1 | 2;
  draw_two: boolean;
  queen_skip: boolean;
  ace_reverse: boolean;
  queen_of_spades: boolean;
  black_jack: boolean;
  fastplay: boolean;
  reshuffle: boolean;
  last_card: boolean;
  target_score: 0 | 50 | 100 | 200;
}

/** What a seat sees on its turn. */
export interface CrazyEightsObservation extends BaseObservation {
  hand: string[];
  top_card: string;
  /** Bottom first; it shrinks to its top card on a reshuffle. */
  discard_pile: string[];
  /** Cards left to draw. */
  draw_pile: number;
  hand_sizes: number[];
  /** The seat whose turn it is. */
  current: number;
  /** 1 clockwise, -1 after an odd number of aces. */
  direction: 1 | -1;
  /** The suit the last 8 wished, binding the current seat; null when none. */
  wish: Suit | null;
  /** Cards the current seat must draw unless it counters. */
  penalty: number;
  penalty_kind: "two" | "black_jack" | "";
  phase: "play" | "drawn";
  /** The card you just drew under Fastplay, in phase "drawn"; else null. */
  drawn: string | null;
  last_card: boolean[];
  passes: number;
  totals: number[];
  hand_number: number;
  dealer: number;
  last_hand: { winner: number | null; points: number[]; blocked: boolean } | null;
  options: CrazyEightsOptions;
}

export type CrazyEightsTurn = Turn<CrazyEightsObservation>;

/** An action id taken apart. */
export type CrazyEightsAction =
  | { kind: "play"; card: string; wish: Suit | null; lastCard: boolean; id: string }
  | { kind: "draw"; count: number; id: string }
  | { kind: "pass"; id: string };

/**
 * Parses an action id: "play 8D suit=S last_card", "play 7H", "draw", "draw 4", "pass".
 *
 *     parseAction("play 8D suit=S")  // {kind: "play", card: "8D", wish: "S", lastCard: false, ...}
 */
export function parseAction(id: string): CrazyEightsAction {
  const words = id.split(" ");
  if (words[0] === "play" && words.length >= 2) {
    const wish = words.find((w) => w.startsWith("suit="));
    return { kind: "play", card: words[1], wish: wish ? (wish.slice(5) as Suit) : null,
             lastCard: words.includes("last_card"), id };
  }
  if (words[0] === "draw") return { kind: "draw", count: words.length > 1 ? Number(words[1]) : 1, id };
  if (words[0] === "pass" && words.length === 1) return { kind: "pass", id };
  throw new RangeError(`not a crazy_eights action: ${id}`);
}

/** The penalty points of a card left in hand (crazy_eights 4.2): 2–10 face value, J Q K A 10. */
export function penaltyPoints(card: string): number {
  const rank = card.slice(0, -1);
  if (rank === "T" || rank === "J" || rank === "Q" || rank === "K" || rank === "A") return 10;
  return Number(rank);
}
