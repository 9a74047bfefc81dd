// The Crazy 8s heuristic and the action parsers, on turns shaped like docs/games/crazy_eights.md.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { chooseCrazyEights } from "../bots/crazyEights";
import { parseAction, type CrazyEightsObservation } from "../games/crazyEights";
import * as durak from "../games/durak";

function observation(hand: string[], top: string, extra: Partial<CrazyEightsObservation> = {}): CrazyEightsObservation {
  return {
    seat: 0, num_players: 2, to_act: [0], hand, top_card: top, discard_pile: [top], draw_pile: 30,
    hand_sizes: [hand.length, 5], current: 0, direction: 1, wish: null, penalty: 0, penalty_kind: "",
    phase: "play", drawn: null, last_card: [false, false], passes: 0, totals: [0, 0], hand_number: 0,
    dealer: 1, last_hand: null,
    options: { decks: 1, draw_two: true, queen_skip: true, ace_reverse: true, queen_of_spades: false,
               black_jack: false, fastplay: false, reshuffle: false, last_card: false, target_score: 0 },
    ...extra,
  };
}

test("the documented example turn: a heart that leaves a follower", () => {
  // Hand 2S 3H 4S 9H on TH: 3H and 9H are legal; either leaves 9H/3H; the 9 costs more.
  const obs = observation(["2S", "3H", "4S", "9H"], "TH");
  assert.equal(chooseCrazyEights(obs, ["play 3H", "play 9H"]), "play 9H");
});

test("a plain card is played before an eight", () => {
  const obs = observation(["8D", "5S", "KC"], "5H");
  const legal = ["play 5S", "play 8D suit=C", "play 8D suit=D", "play 8D suit=H", "play 8D suit=S"];
  assert.equal(chooseCrazyEights(obs, legal), "play 5S");
});

test("the play after which more of the hand can follow wins", () => {
  // On 7C: 7D leaves 2D 3D to follow (diamonds), KC leaves nothing clubby.
  const obs = observation(["7D", "KC", "2D", "3D"], "7C");
  assert.equal(chooseCrazyEights(obs, ["play 7D", "play KC"]), "play 7D");
});

test("an eight wishes the suit held most, not counting eights", () => {
  const obs = observation(["8D", "8S", "2H", "5H", "KH", "3C"], "4S");
  const legal = ["play 8D suit=C", "play 8D suit=D", "play 8D suit=H", "play 8D suit=S",
                 "play 8S suit=C", "play 8S suit=D", "play 8S suit=H", "play 8S suit=S"];
  assert.match(chooseCrazyEights(obs, legal), /^play 8[DS] suit=H$/);
});

test("with nothing to play it draws, or takes the penalty", () => {
  assert.equal(chooseCrazyEights(observation(["3C"], "5H"), ["draw"]), "draw");
  assert.equal(chooseCrazyEights(observation(["3C", "2H"], "2S", { penalty: 2, penalty_kind: "two" }),
                                 ["draw 2", "play 2H"]), "play 2H");
});

test("Last card! is called when the id offers it", () => {
  const obs = observation(["4H", "9C"], "4S");
  assert.equal(chooseCrazyEights(obs, ["play 4H", "play 4H last_card"]), "play 4H last_card");
});

test("action ids are taken apart", () => {
  assert.deepEqual(parseAction("play 8D suit=S last_card"),
                   { kind: "play", card: "8D", wish: "S", lastCard: true, id: "play 8D suit=S last_card" });
  assert.deepEqual(parseAction("draw 4"), { kind: "draw", count: 4, id: "draw 4" });
  assert.throws(() => parseAction("attack 7C"));
  assert.deepEqual(durak.parseAction("defend 7C KC"), { kind: "defend", attack: "7C", card: "KC", id: "defend 7C KC" });
  assert.deepEqual(durak.parseAction("shove 7H reverse"), { kind: "shove", cards: ["7H"], reverse: true, id: "shove 7H reverse" });
});
