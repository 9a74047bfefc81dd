/**
 * The Arena service from the command line, for authors without the Python tools:
 *
 *     node dist/tools/arena.js register my-bot [--owner you@example.org]    # prints the token, once
 *     node dist/tools/arena.js challenge crazy_eights my-bot house:heuristic  # with ARENA_BOT_TOKEN
 *     node dist/tools/arena.js tournament --game crazy_eights --bots my-bot,heuristic,random --repetitions 4
 *                                                                            # admin: ARENA_ADMIN_TOKEN
 *     node dist/tools/arena.js leaderboard crazy_eights
 *
 * Every command takes --address and --ca like the bots (defaults ARENA_ADDRESS, ARENA_TLS_CA).
 */
import { parseArgs } from "node:util";
import * as grpc from "@grpc/grpc-js";
import { addressFrom, credentialsFrom } from "../client";
import { serviceClient } from "../proto";

type Unary = (request: object, metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null, reply: any) => void) => void;

const USAGE = `usage: arena.js register NAME [--owner TEXT]
       arena.js challenge GAME PLAYER... [--option NAME=JSON]...        (ARENA_BOT_TOKEN or ARENA_ADMIN_TOKEN)
       arena.js tournament --game GAME... --bots A,B,... [--repetitions N] [--table-size N]... [--unrated]
                                                                        (ARENA_ADMIN_TOKEN)
       arena.js leaderboard GAME
options of every command: --address HOST:PORT, --ca FILE (TLS)`;

function bearer(token: string | undefined): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (token) metadata.set("authorization", `Bearer ${token}`);
  return metadata;
}

function call(client: grpc.Client, method: string, request: object, metadata = new grpc.Metadata()): Promise<any> {
  const unary = (client as unknown as Record<string, Unary>)[method].bind(client);
  return new Promise((resolve, reject) => unary(request, metadata, (error, reply) => (error ? reject(error) : resolve(reply))));
}

async function printLeaderboard(client: grpc.Client, game: string): Promise<void> {
  const board = await call(client, "GetLeaderboard", { game, limit: 0 });
  console.log(`${game}`);
  console.log("rank  bot                       elo (95 %)             matches  win rate  mean rank");
  for (const row of board.rows) {
    const interval = `${row.elo.toFixed(0)} (${row.elo_low.toFixed(0)}-${row.elo_high.toFixed(0)})`;
    console.log(`${String(row.rank).padStart(4)}  ${row.bot.padEnd(24)}  ${interval.padEnd(21)}  `
      + `${String(row.matches).padStart(7)}  ${(row.win_rate * 100).toFixed(0).padStart(7)} %  ${row.mean_rank.toFixed(2).padStart(9)}`);
  }
}

async function follow(client: grpc.Client, tournamentId: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let last = "";
    const stream = (client as unknown as { FollowTournament(request: object): grpc.ClientReadableStream<any> })
      .FollowTournament({ tournament_id: tournamentId });
    stream.on("data", (status: any) => {
      last = status.status;
      const progress = status.progress.map((p: any) => `${p.game} ${p.done}/${p.total}`).join(", ");
      console.log(`tournament ${status.tournament_id} ${status.status}: ${progress}`);
    });
    stream.on("error", reject);
    stream.on("end", () => resolve(last));
  });
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: {
      address: { type: "string" }, ca: { type: "string" }, owner: { type: "string" },
      game: { type: "string", multiple: true }, bots: { type: "string" }, name: { type: "string" },
      repetitions: { type: "string" }, "table-size": { type: "string", multiple: true },
      unrated: { type: "boolean" }, option: { type: "string", multiple: true }, help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const Arena = serviceClient("Arena");
  const client = new Arena(addressFrom(values), credentialsFrom({ tlsCa: values.ca }));
  const env = process.env;
  try {
    switch (command) {
      case "register": {
        const reply = await call(client, "RegisterBot", { name: rest[0] ?? "", owner: values.owner ?? "" },
                                 bearer(env.ARENA_ADMIN_TOKEN));
        console.log(`registered bot ${reply.name} (id ${reply.bot_id})\ntoken: ${reply.token}`);
        console.log("This token is shown once. Run your bot with ARENA_BOT_TOKEN set to it.");
        return 0;
      }
      case "challenge": {
        const options = Object.fromEntries((values.option ?? []).map((o) => {
          const [name, ...value] = o.split("=");
          return [name, JSON.parse(value.join("="))];
        }));
        const [game, ...players] = rest;
        const ref = await call(client, "Challenge", { game, players, options_json: JSON.stringify(options) },
                               bearer(env.ARENA_BOT_TOKEN || env.ARENA_ADMIN_TOKEN));
        for (;;) {
          const detail = await call(client, "GetMatch", ref);
          if (!["scheduled", "running"].includes(detail.summary.status)) {
            console.log(`match ${ref.match_id}: ${detail.summary.status}; players ${detail.summary.players.join(", ")}; `
              + `ranks ${detail.summary.ranks.join(", ")}`);
            return detail.summary.status === "done" ? 0 : 1;
          }
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
      case "tournament": {
        const games = values.game ?? [];
        const sizes = (values["table-size"] ?? ["2"]).map(Number);
        const ref = await call(client, "CreateTournament", {
          name: values.name ?? `${games.join("+")} from the Node kit`,
          games: games.map((game) => ({ game, table_sizes: sizes })),
          bots: (values.bots ?? "").split(",").filter(Boolean),
          repetitions: Number(values.repetitions ?? 1), rated: !values.unrated,
        }, bearer(env.ARENA_ADMIN_TOKEN));
        const status = await follow(client, ref.tournament_id);
        for (const game of games) await printLeaderboard(client, game);
        return status === "done" ? 0 : 1;
      }
      case "leaderboard":
        await printLeaderboard(client, rest[0] ?? "");
        return 0;
      default:
        console.error(USAGE);
        return 2;
    }
  } catch (error) {
    const status = error as grpc.ServiceError;
    console.error(`${command}: ${grpc.status[status.code] ?? ""} ${status.details ?? String(error)}`);
    return 1;
  } finally {
    client.close();
  }
}

if (require.main === module) {
  void main().then((code) => { process.exitCode = code; });
}
