/**
 * Durak (`durak`): its observation and action ids as types and helpers.
 * The rules and every field: docs/games/durak.md.
 */
import type { Suit } from "../cards";
import type { BaseObservation, Turn } from "../types";

export const GAME = "durak";

/** One attack card on the table and what beat it (null while open). */
export interface TablePair {
  attack: string;
  defence: string | null;
}

/** What a seat sees when it decides. */
export interface DurakObservation extends BaseObservation {
  phase: "redeal" | "lead" | "defend" | "throw_in" | "over";
  pack: 36 | 52;
  hand: string[];
  trump: Suit;
  trump_card: string;
  trump_card_in_stock: boolean;
  hidden_bottom_card: boolean;
  stock_count: number;
  hand_counts: number[];
  /** Per seat, the cards everyone knows to be in that hand. */
  known_cards: string[][];
  /** Beaten cards, out of the game. */
  discards: string[];
  table: TablePair[];
  attacker: number;
  defender: number;
  direction: 1 | -1;
  taking: boolean;
  /** More attack cards that may be laid now. */
  room: number;
  attack_cap: number;
  bout: number;
  throw_in_order: number[];
  dealer: number;
  redeals: number;
  shown_trump: string | null;
  teams: number[] | null;
  losers: number[];
  options?: Record<string, unknown>;
}

export type DurakTurn = Turn<DurakObservation>;

/** An action id taken apart. */
export type DurakAction =
  | { kind: "keep" | "redeal" | "done" | "take"; id: string }
  | { kind: "attack"; cards: string[]; id: string }
  | { kind: "defend"; attack: string; card: string; id: string }
  | { kind: "shove"; cards: string[]; reverse: boolean; id: string };

/** Parses an action id: "attack 7C 7D", "defend 7C KC", "shove 7H reverse", "take", … */
export function parseAction(id: string): DurakAction {
  const [verb, ...rest] = id.split(" ");
  switch (verb) {
    case "keep": case "redeal": case "done": case "take":
      return { kind: verb, id };
    case "attack":
      return { kind: "attack", cards: rest, id };
    case "defend":
      return { kind: "defend", attack: rest[0], card: rest[1], id };
    case "shove":
      return { kind: "shove", cards: rest.filter((w) => w !== "reverse"), reverse: rest.includes("reverse"), id };
  }
  throw new RangeError(`not a durak action: ${id}`);
}

/** True when you are the defender of this bout (simultaneous turns: tell yourself apart). */
export function isDefender(obs: DurakObservation): boolean {
  return obs.seat === obs.defender;
}
