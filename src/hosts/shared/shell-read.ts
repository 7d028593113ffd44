/**
 * The one file a shell command line only reads, or null (docs/design.md#file-hook). Codex has no
 * read tool: its model reads a file through the shell (`exec_command`), and its PostToolUse
 * payload carries the command line as `tool_name: "Bash"`, `tool_input.command`
 * (docs/integrations.md, "Codex and the file hook"). Guessing a file from any shell line would
 * surface memories about files the agent never looked at, so only this list is read, each with
 * exactly one file operand:
 *
 * - `cat [-n] F`
 * - `nl [-ba] F`
 * - `head [-n N | -nN | -N] F`, `tail [-n N | -nN | -N] F`
 * - `sed -n 'Np' F`, `sed -n 'A,Bp' F` (B may be `$`)
 * - `bat [-n | -p | --plain] F`
 *
 * piped, if at all, only into filters that read no file of their own: `| sed -n 'A,Bp'`,
 * `| head [-n N]`, `| tail [-n N]` (`nl -ba F | sed -n '1,200p'` is how Codex's models most often
 * read a file). Words may be quoted ('…' or "…" without `$`, `` ` `` or `\`). Anything else is
 * refused: other options, two files, other pipes, redirections, `;`, `&&`, `||`, subshells,
 * variables, globs, `~`, a backslash, a newline. Pure: the hook decides from the text alone.
 *
 * @example
 * shellReadPath("sed -n '1,80p' src/auth/login.ts") // "src/auth/login.ts"
 * shellReadPath("nl -ba src/a.ts | sed -n '1,40p'") // "src/a.ts"
 * shellReadPath("cat src/*.ts") // null
 * shellReadPath("cat src/a.ts | grep token") // null
 */
export function shellReadPath(command: string): string | null {
  const words = shellWords(command.trim());
  if (words === null) return null;
  const [read, ...filters] = pipelineOf(words);
  if (read === undefined || read.length < 2 || !filters.every(isFilter)) return null;
  const [program, ...args] = read as [string, ...string[]];
  const file = args.at(-1)!;
  const options = args.slice(0, -1);
  if (file === "" || file.startsWith("-")) return null;
  return Object.hasOwn(OPTIONS, program) && OPTIONS[program]!(options) ? file : null;
}

/** Marks an unquoted `|` among the words (a word cannot hold it: quoted text is kept apart). */
const PIPE = Symbol("pipe");

/** The commands of a pipeline, each as its words; an empty command (`a ||`, `| a`) stays empty. */
function pipelineOf(words: Array<string | typeof PIPE>): string[][] {
  const commands: string[][] = [[]];
  for (const word of words) {
    if (word === PIPE) commands.push([]);
    else commands.at(-1)!.push(word);
  }
  return commands;
}

/** A filter after the read: `sed -n 'A,Bp'`, or `head` / `tail` with a line count — no file. */
function isFilter(words: string[]): boolean {
  const [program, ...options] = words;
  if (program === "sed") return options.length === 2 && options[0] === "-n" && SED_PRINT.test(options[1]!);
  return (program === "head" || program === "tail") && lineCount(options);
}

const COUNT = /^\d+$/;
const SED_PRINT = /^\d+(,(\d+|\$))?p$/;

/** The options each read command may carry before its file, by program. */
const OPTIONS: Record<string, (options: string[]) => boolean> = {
  cat: (options) => options.length === 0 || (options.length === 1 && options[0] === "-n"),
  nl: (options) => options.length === 0 || (options.length === 1 && options[0] === "-ba"),
  head: lineCount,
  tail: lineCount,
  sed: (options) => options.length === 2 && options[0] === "-n" && SED_PRINT.test(options[1]!),
  bat: (options) =>
    options.length === 0 || (options.length === 1 && ["-n", "-p", "--plain"].includes(options[0]!)),
};

/** `head` / `tail`: nothing, `-n N`, `-nN` or `-N`. */
function lineCount(options: string[]): boolean {
  if (options.length === 0) return true;
  if (options.length === 2) return options[0] === "-n" && COUNT.test(options[1]!);
  const [only] = options;
  return options.length === 1 && /^-n?\d+$/.test(only!);
}

/**
 * The words of a command line with plain quoting only, each unquoted `|` as {@link PIPE}, or null
 * when the line holds anything else a shell would expand, chain or redirect (outside quotes:
 * `& ; < > ( ) $ \` \\ * ? [ ] { } ~ #`, a newline; inside double quotes: `$`, `` ` ``, `\`).
 */
function shellWords(line: string): Array<string | typeof PIPE> | null {
  const words: Array<string | typeof PIPE> = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (char === " " || char === "\t") {
      if (word !== null) words.push(word);
      word = null;
    } else if (char === "'" || char === '"') {
      const end = line.indexOf(char, i + 1);
      if (end < 0) return null;
      const quoted = line.slice(i + 1, end);
      if (char === '"' && /[$`\\]/.test(quoted)) return null;
      word = (word ?? "") + quoted;
      i = end;
    } else if (char === "|") {
      if (word !== null) words.push(word);
      word = null;
      words.push(PIPE);
    } else if (/[&;<>()$`\\*?[\]{}~#\n\r]/.test(char)) return null;
    else word = (word ?? "") + char;
  }
  if (word !== null) words.push(word);
  return words;
}
