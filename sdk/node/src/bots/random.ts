/**
 * The simplest bot: a uniformly random legal action, in every game.
 * `node dist/bots/random.js` (or `npm run random`).
 */
import { main } from "../cli";
import type { Bot, Turn } from "../types";

/** A uniformly random legal action in any game; four matches at once. */
export class RandomBot implements Bot {
  games: string[] = [];  // every game
  maxMatches = 4;

  act(turn: Turn): string {
    return turn.legalActions[Math.floor(Math.random() * turn.legalActions.length)];
  }
}

if (require.main === module) {
  void main(new RandomBot(), "A bot that plays uniformly random legal actions in every game.");
}
