import fs from "node:fs";
import path from "node:path";

const repo = path.resolve(import.meta.dirname, "../..");
// An absolute loader URL, so a child finds tsx whatever its cwd is.
const tsxLoader = import.meta.resolve("tsx");

/**
 * Node arguments that run the TypeScript file `tsFile` (absolute, inside the repo) in a child process.
 * `npm test` compiles the whole repo once into `MEMDIR_TEST_BUILD` (see scripts/run-tests.mjs), and
 * children then start from that JavaScript: starting through tsx costs about a second per process,
 * and the reliability suite starts hundreds. Run alone (`node --import tsx --test …`), children
 * use tsx, so they always run the current sources.
 */
export function nodeArgsFor(tsFile: string): string[] {
  const build = process.env.MEMDIR_TEST_BUILD;
  if (build) {
    const compiled = path.join(build, path.relative(repo, tsFile)).replace(/\.ts$/, ".js");
    if (fs.existsSync(compiled)) return [compiled];
  }
  return ["--import", tsxLoader, tsFile];
}

/** Node arguments that start the memdir CLI from the current sources. */
export function cliNodeArgs(): string[] {
  return nodeArgsFor(path.join(repo, "src/cli/run.ts"));
}
