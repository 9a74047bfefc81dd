/**
 * The arena bot kit for Node: implement `Bot.act`, call `run`.
 *
 *     import { run, type Bot } from "arena-bot-kit";
 *     const bot: Bot = { maxMatches: 4, act: (turn) => turn.legalActions[0] };
 *     void run(bot);  // token from ARENA_BOT_TOKEN, address from ARENA_ADDRESS
 */
export * from "./types";
export * from "./cards";
export { addressFrom, credentialsFrom, FINAL_GATEWAY_ERRORS, FINAL_STATUS, FinalError, play, run, SDK_VERSION, stderrLogger,
         type ConnectionOptions, type Logger } from "./client";
export { main } from "./cli";
export { arena, PROTO_DIR, serviceClient } from "./proto";
export * as crazyEights from "./games/crazyEights";
export * as durak from "./games/durak";
export { RandomBot } from "./bots/random";
export { CrazyEightsBot, chooseCrazyEights } from "./bots/crazyEights";
