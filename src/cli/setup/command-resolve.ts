import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// An agent starts memdir by the command setup writes (`memdir hook …`, the MCP entry), looked up
// on the PATH of the environment the agent gets. Setup checks that lookup before it writes, and
// `memdir doctor` checks what is written (docs/integrations.md#the-command-agents-run).

/** The memdir that is running: the node binary and the package's `bin/memdir.js`. */
export interface SelfCommand {
  node: string;
  /** `bin/memdir.js` of the package this file belongs to, or null when it cannot be found. */
  bin: string | null;
}

/** What setup writes as the command and why. */
export interface ResolvedCommand {
  /** The words of the command: `["memdir"]`, or `[node, "/x/bin/memdir.js"]`. */
  argv: string[];
  /**
   * The same as a command line for hooks: `--command` as the user wrote it (its quotes and
   * `${VARIABLES}` kept for the shell that runs the hook), else the words quoted where needed.
   */
  line: string;
  /** True when setup wrote the absolute form because `memdir` on PATH is missing or another one. */
  absolute: boolean;
  /** One sentence for the user when the command needed attention, else null. */
  note: string | null;
}

/**
 * `bin/memdir.js` of the package at or above `from` (src/cli/setup, dist/cli/setup and the test
 * build's src/cli/setup sit at different depths below it, as `memdirVersion` finds package.json).
 */
export function selfCommand(from = path.dirname(fileURLToPath(import.meta.url))): SelfCommand {
  let dir = from;
  for (let level = 0; level < 6; level++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: unknown };
      const bin = path.join(dir, "bin", "memdir.js");
      if (pkg.name === "memdir" && fs.existsSync(bin)) return { node: process.execPath, bin };
    } catch {
      // not here: look further up
    }
    dir = path.dirname(dir);
  }
  return { node: process.execPath, bin: null };
}

/**
 * The folders of `PATH` the agent will search. Under `npm exec` / `npx` (`npm_command` set), npm
 * put its own `node_modules/.bin` folders first; an agent started later never has them, so they
 * are left out — else `npx memdir setup …` would find the memdir of npx's cache and write a
 * command the agent cannot run.
 */
export function agentPathFolders(env: NodeJS.ProcessEnv): string[] {
  const folders = (env.PATH ?? "").split(path.delimiter).filter((folder) => folder !== "");
  if (env.npm_command === undefined) return folders;
  return folders.filter(
    (folder) => !/[\\/]node_modules[\\/]\.bin$/.test(folder) && !/[\\/]_npx[\\/]/.test(folder),
  );
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `name` resolves: itself when it holds a slash (an executable file), else the first match on PATH. */
export function findExecutable(name: string, env: NodeJS.ProcessEnv): string | null {
  if (name.includes("/") || name.includes(path.sep)) return isExecutableFile(name) ? name : null;
  for (const folder of agentPathFolders(env)) {
    const candidate = path.join(folder, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

function realOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

/**
 * Whether the `memdir` found on PATH starts `bin`: a link to it (npm's global install), or a small
 * script that names it (pnpm's and other shims).
 */
export function startsBin(found: string, bin: string): boolean {
  const target = realOrSelf(bin);
  if (realOrSelf(found) === target) return true;
  try {
    if (fs.statSync(found).size > 16_384) return false;
    const text = fs.readFileSync(found, "utf8");
    return text.includes(target) || text.includes(bin);
  } catch {
    return false;
  }
}

/**
 * Why the script at `file` would not start with `env`'s PATH, or null: a `#!/usr/bin/env node`
 * line (npm's bin scripts) needs `node` on that PATH too, which an agent started from a desktop
 * launcher may lack although the shell that ran setup has it.
 */
export function interpreterProblem(file: string, env: NodeJS.ProcessEnv): string | null {
  let head: string;
  try {
    const handle = fs.openSync(file, "r");
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.subarray(0, fs.readSync(handle, buffer, 0, 256, 0)).toString("utf8");
    } finally {
      fs.closeSync(handle);
    }
  } catch {
    return null;
  }
  const interpreter = /^#!\s*\S*\/env\s+(?:-S\s+)?([^\s-][^\s]*)/.exec(head.split("\n")[0]);
  if (interpreter === null || findExecutable(interpreter[1], env) !== null) return null;
  return `${file} starts with "#!/usr/bin/env ${interpreter[1]}" and ${interpreter[1]} is not on PATH`;
}

const SHELL_SAFE = /^[\w@%+=:,./-]+$/;

/** One word for a `sh -c` command line: as it is when that is safe, else in single quotes. */
export function shellWord(word: string): string {
  return SHELL_SAFE.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** Words back into a command line, quoted where needed. */
export function shellLine(argv: readonly string[]): string {
  return argv.map(shellWord).join(" ");
}

/**
 * A command line split into words the way `sh` would for the simple lines setup and users write:
 * whitespace separates, single quotes keep everything, double quotes and backslashes their usual
 * meaning. Enough to find the executable and the script of a hook command.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (char === "'") {
      const end = line.indexOf("'", index + 1);
      word += line.slice(index + 1, end === -1 ? line.length : end);
      index = end === -1 ? line.length : end;
      inWord = true;
    } else if (char === '"') {
      index++;
      while (index < line.length && line[index] !== '"') {
        if (line[index] === "\\" && index + 1 < line.length) index++;
        word += line[index];
        index++;
      }
      inWord = true;
    } else if (char === "\\" && index + 1 < line.length) {
      word += line[++index];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * The command setup writes. `requested` (`--command`) is the user's choice and is written as
 * given, with a note when its executable does not resolve. Without it, `memdir` is written when
 * the `memdir` on the agent's PATH is this one; when it is missing, or another memdir, the
 * absolute form (`node /x/bin/memdir.js`) is written and the note says why. A project's files
 * (`scope: "project"`) are committed and run on every teammate's machine, where a path of this
 * one points at nothing: they always get `memdir`, and the note says when it is not on PATH here.
 */
export function resolveSetupCommand(options: {
  requested: string | undefined;
  env: NodeJS.ProcessEnv;
  self: SelfCommand;
  scope?: "user" | "project";
}): ResolvedCommand {
  const { requested, env, self } = options;
  if (requested !== undefined) {
    const argv = splitCommandLine(requested);
    if (argv.length === 0) return { argv: ["memdir"], line: "memdir", absolute: false, note: null };
    const found = findExecutable(argv[0], env);
    return {
      argv,
      line: requested.trim(),
      absolute: false,
      note:
        found === null
          ? `${argv[0]} (from --command) is not on PATH (${env.PATH ?? ""}): the agent will not start memdir until it is`
          : null,
    };
  }
  const found = findExecutable("memdir", env);
  if (options.scope === "project")
    return {
      argv: ["memdir"],
      line: "memdir",
      absolute: false,
      note:
        found === null
          ? "memdir is not on PATH: the project's files run `memdir`, as they must on every teammate's machine; put it on PATH where they run (`npm link` in a memdir checkout, as the README shows), or pass --command"
          : null,
    };
  if (self.bin === null)
    return {
      argv: ["memdir"],
      line: "memdir",
      absolute: false,
      note: found === null ? "memdir is not on PATH, and this memdir's bin/memdir.js was not found" : null,
    };
  const ours = found !== null && startsBin(found, self.bin);
  const interpreter = ours ? interpreterProblem(found, env) : null;
  if (ours && interpreter === null) return { argv: ["memdir"], line: "memdir", absolute: false, note: null };
  const argv = [self.node, self.bin];
  const why =
    found === null
      ? "memdir is not on PATH"
      : interpreter !== null
        ? interpreter
        : `the memdir on PATH (${found}) is another one than this (${self.bin})`;
  return {
    argv,
    line: shellLine(argv),
    absolute: true,
    note: `${why}, so the agent is given the absolute command: ${shellLine(argv)}`,
  };
}
