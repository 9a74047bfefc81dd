/** Command-line plumbing shared by the example bots: address, token, TLS, matches at once. */
import { parseArgs } from "node:util";
import { run } from "./client";
import type { Bot } from "./types";

const USAGE = `options:
  --address HOST:PORT   the arena (default ARENA_ADDRESS, else 127.0.0.1:50051)
  --token TOKEN         the bot's token; better set ARENA_BOT_TOKEN (arguments are visible to other users)
  --ca FILE             the server's CA certificate (PEM): connect with TLS (default ARENA_TLS_CA)
  --max-matches N       matches at once (the server may grant fewer)
  --every-decision      be asked for single-action decisions too (default: applied for you, in Turn.forced)
challenges from other bots (declined unless accepted):
  --accept-challenges   accept them (default ARENA_ACCEPT_CHALLENGES=1)
  --challenge-games G,H only in these games (default ARENA_CHALLENGE_GAMES, else every game)
  --challenge-from A,B  only from these bots (default ARENA_CHALLENGE_FROM, else any bot)
  --max-challenges N    challenges at once, beside --max-matches (default ARENA_MAX_CHALLENGES, else 1)
  -h, --help            this text`;

/** "a, b" -> ["a", "b"]. */
function names(text: string | undefined): string[] {
  return (text ?? "").split(",").map((name) => name.trim()).filter((name) => name !== "");
}

function positive(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${flag}: not a positive integer: ${text}`);
  return n;
}

/** Parses the shared options, then plays as `bot` until interrupted. */
export async function main(bot: Bot, description: string, argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      address: { type: "string" },
      token: { type: "string" },
      ca: { type: "string" },
      "max-matches": { type: "string" },
      "every-decision": { type: "boolean" },
      "accept-challenges": { type: "boolean" },
      "challenge-games": { type: "string" },
      "challenge-from": { type: "string" },
      "max-challenges": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(`${description}\n\n${USAGE}\n`);
    return;
  }
  if (values["max-matches"] !== undefined) bot.maxMatches = positive("--max-matches", values["max-matches"]);
  if (values["every-decision"]) bot.everyDecision = true;
  const env = process.env;
  if (values["accept-challenges"] ?? env.ARENA_ACCEPT_CHALLENGES === "1") {
    bot.challenges = {
      accept: true,
      games: names(values["challenge-games"] ?? env.ARENA_CHALLENGE_GAMES),
      fromBots: names(values["challenge-from"] ?? env.ARENA_CHALLENGE_FROM),
      maxAtOnce: positive("--max-challenges", values["max-challenges"] ?? env.ARENA_MAX_CHALLENGES ?? "1"),
    };
  }
  await run(bot, { address: values.address, token: values.token, tlsCa: values.ca });
}
