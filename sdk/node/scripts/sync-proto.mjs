// Copies the arena's protocol (../../proto/arena/v1/*.proto, the repository's copy) into this
// kit's proto/ so that the kit works on its own once published. `--check` only compares and
// exits 1 when the copies differ (the kit is then out of date: run `npm run sync-proto`).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const kit = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(kit, "..", "..", "proto", "arena", "v1");
const target = join(kit, "proto", "arena", "v1");
const check = process.argv.includes("--check");

if (!existsSync(source)) {
  // Outside the repository (an installed package) the kit's own copy is all there is.
  console.error(`no ${source}: keeping the kit's copy of the protocol`);
  process.exit(check ? 1 : 0);
}
const protos = (dir) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".proto")).sort() : []);
const wanted = protos(source);
if (check) {
  const have = protos(target);
  const stale = wanted.filter((f) => !have.includes(f) || !readFileSync(join(source, f)).equals(readFileSync(join(target, f))));
  const extra = have.filter((f) => !wanted.includes(f));
  if (stale.length || extra.length) {
    console.error(`proto/ differs from the repository's: ${[...stale, ...extra].join(", ")} (run npm run sync-proto)`);
    process.exit(1);
  }
  console.log(`proto/ matches the repository's (${wanted.length} files)`);
} else {
  mkdirSync(target, { recursive: true });
  for (const f of protos(target)) if (!wanted.includes(f)) rmSync(join(target, f));
  for (const f of wanted) copyFileSync(join(source, f), join(target, f));
  console.log(`copied ${wanted.join(", ")} into proto/arena/v1`);
}
