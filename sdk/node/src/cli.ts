/** Command-line plumbing shared by the example bots: address, token, TLS, matches at once. */
import { parseArgs } from "node:util";
import { run } from "./client";
import type { Bot } from "./types";

const USAGE = `options:
  --address HOST:PORT   the arena (default ARENA_ADDRESS, else 127.0.0.1:50051)
  --token TOKEN         the bot's token; better set ARENA_BOT_TOKEN (arguments are visible to other users)
  --ca FILE             the server's CA certificate (PEM): connect with TLS (default ARENA_TLS_CA)
  --max-matches N       matches at once (the server may grant fewer)
  -h, --help            this text`;

/** Parses the shared options, then plays as `bot` until interrupted. */
export async function main(bot: Bot, description: string, argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      address: { type: "string" },
      token: { type: "string" },
      ca: { type: "string" },
      "max-matches": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(`${description}\n\n${USAGE}\n`);
    return;
  }
  if (values["max-matches"] !== undefined) {
    const n = Number(values["max-matches"]);
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`--max-matches: not a positive integer: ${values["max-matches"]}`);
    bot.maxMatches = n;
  }
  await run(bot, { address: values.address, token: values.token, tlsCa: values.ca });
}
