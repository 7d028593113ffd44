import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The flags that print the version: `memdir --version`, `memdir -V`. */
const VERSION_FLAGS = new Set(["--version", "-V"]);

/** Whether `args` (argv without node and the script) is a version request, and nothing else. */
export function isVersionRequest(args: readonly string[]): boolean {
  return args.length === 1 && VERSION_FLAGS.has(args[0]);
}

/**
 * The version in the installed package's `package.json`: the first one named memdir at or above
 * this file (src/cli/, dist/cli/ and the test build's src/cli/ sit at different depths below it,
 * so it is looked for, as bin/memdir.js and src/helper/paths.ts look for it). "unknown" when none
 * is found.
 */
export function memdirVersion(from = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (let level = 0; level < 5; level++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === "memdir" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // not here: look further up
    }
    dir = path.dirname(dir);
  }
  return "unknown";
}
