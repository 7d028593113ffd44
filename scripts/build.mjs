// `npm run build` (and `prepare`): dist/ from src/. tsc writes a fresh tree beside it, which is
// then swapped in (scripts/swap-in.mjs), so files of deleted or renamed sources leave the package
// and dist/ is whole at every moment — a linked `memdir` keeps working while the suite rebuilds.
// tsconfig.build.json emits no source maps, since the package does not ship src/ for them to
// point at.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { swapIn } from "./swap-in.mjs";

const root = path.resolve(import.meta.dirname, "..");
const next = path.join(root, `.dist-next-${process.pid}`);
fs.rmSync(next, { recursive: true, force: true });
const result = spawnSync(
  process.execPath,
  [
    path.join(root, "node_modules/typescript/bin/tsc"),
    "-p",
    path.join(root, "tsconfig.build.json"),
    "--outDir",
    next,
  ],
  { cwd: root, stdio: "inherit" },
);
if (result.status !== 0) {
  fs.rmSync(next, { recursive: true, force: true });
  process.exit(result.status ?? 1);
}
swapIn(next, path.join(root, "dist"));
