// `npm run build` (and `prepare`): a clean dist/ from src/. Cleaning first keeps files of deleted
// or renamed sources out of the package; tsconfig.build.json emits no source maps, since the
// package does not ship src/ for them to point at.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
fs.rmSync(path.join(root, "dist"), { recursive: true, force: true });
const result = spawnSync(
  process.execPath,
  [path.join(root, "node_modules/typescript/bin/tsc"), "-p", path.join(root, "tsconfig.build.json")],
  { cwd: root, stdio: "inherit" },
);
process.exit(result.status ?? 1);
