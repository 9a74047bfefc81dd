/**
 * A simple Crazy 8s bot: follow suit or rank while it can, keep its eights for when nothing
 * else fits, and wish the suit it holds most. Any other game gets a random legal action.
 * `node dist/bots/crazyEights.js` (or `npm run crazy-eights`).
 */
import { countSuits, rankOf, SUITS, type Suit } from "../cards";
import { main } from "../cli";
import { GAME, parseAction, penaltyPoints, type CrazyEightsAction, type CrazyEightsObservation }
  from "../games/crazyEights";
import type { Bot, MatchResult, Turn } from "../types";

type Play = Extract<CrazyEightsAction, { kind: "play" }>;

/**
 * The heuristic, on one decision (docs/games/crazy_eights.md):
 * - a card that is not an eight, if any: the one after which most of the hand can still follow
 *   (same suit or rank), the higher penalty first, since it costs most if the hand is lost;
 * - otherwise an eight, wishing the suit held most among the other cards;
 * - otherwise draw (or accept the penalty), or pass.
 * "Last card!" is always called when the id offers it (option last_card).
 */
export function chooseCrazyEights(obs: CrazyEightsObservation, legal: string[]): string {
  const actions = legal.map(parseAction);
  const plays = actions.filter((a): a is Play => a.kind === "play")
    .filter((a) => a.lastCard || !actions.some((b) => b.kind === "play" && b.lastCard && b.card === a.card
                                                        && b.wish === a.wish));
  const plain = plays.filter((a) => rankOf(a.card) !== "8");
  if (plain.length > 0) {
    const score = (a: Play): number => {
      const rest = obs.hand.filter((c) => c !== a.card);
      const followers = rest.filter((c) => c.slice(-1) === a.card.slice(-1) || rankOf(c) === rankOf(a.card)).length;
      return followers * 100 + penaltyPoints(a.card);
    };
    return best(plain, score).id;
  }
  if (plays.length > 0) {
    const eight = plays[0].card;
    const rest = obs.hand.filter((c) => c !== eight && rankOf(c) !== "8");
    const counts = countSuits(rest);
    const wish = best([...SUITS], (s: Suit) => counts[s]);
    return (plays.find((a) => a.card === eight && a.wish === wish) ?? plays[0]).id;
  }
  // No play: draw, accept the penalty, or pass, whichever is offered.
  return actions[0].id;
}

/** The first item with the highest score. */
function best<T>(items: T[], score: (item: T) => number): T {
  return items.reduce((top, item) => (score(item) > score(top) ? item : top));
}

/** `chooseCrazyEights` in Crazy 8s (random elsewhere); logs its rank at the end of each match. */
export class CrazyEightsBot implements Bot {
  games = [GAME];
  maxMatches = 4;

  act(turn: Turn): string {
    if (turn.match.game !== GAME) {
      return turn.legalActions[Math.floor(Math.random() * turn.legalActions.length)];
    }
    return chooseCrazyEights(turn.observation as CrazyEightsObservation, turn.legalActions);
  }

  onMatchEnd(result: MatchResult): void {
    process.stderr.write(`match ${result.match.matchId} (${result.match.game}): rank ${result.rank} of `
      + `${result.ranks.length}${result.forfeited ? ", forfeited" : ""}\n`);
  }
}

if (require.main === module) {
  void main(new CrazyEightsBot(), "A Crazy 8s bot: follows suit or rank, saves its eights, wishes its longest suit.");
}
