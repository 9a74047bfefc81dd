/**
 * Standard playing cards as the arena writes them: rank then suit, "TS" is the ten of spades,
 * "8H" the eight of hearts; jokers are "RJ" and "BJ" (docs/games/README.md).
 */

export const SUITS = ["C", "D", "H", "S"] as const;
export type Suit = (typeof SUITS)[number];
export const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"] as const;
export type Rank = (typeof RANKS)[number];

/** True for "RJ" and "BJ". */
export function isJoker(card: string): boolean {
  return card === "RJ" || card === "BJ";
}

/** The rank of a card: "T" for "TS". */
export function rankOf(card: string): Rank {
  const rank = card.slice(0, -1);
  if (!(RANKS as readonly string[]).includes(rank) || isJoker(card)) throw new RangeError(`not a card: ${card}`);
  return rank as Rank;
}

/** The suit of a card: "S" for "TS". */
export function suitOf(card: string): Suit {
  const suit = card.slice(-1);
  if (!(SUITS as readonly string[]).includes(suit) || isJoker(card)) throw new RangeError(`not a card: ${card}`);
  return suit as Suit;
}

/** Cards counted by suit. Jokers are left out. */
export function countSuits(cards: Iterable<string>): Record<Suit, number> {
  const counts: Record<Suit, number> = { C: 0, D: 0, H: 0, S: 0 };
  for (const card of cards) if (!isJoker(card)) counts[suitOf(card)] += 1;
  return counts;
}
