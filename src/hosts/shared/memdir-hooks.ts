import { normalizeHookEvent } from "./hook-events.ts";

// Which hook handlers in an agent's config are memdir's: setup replaces and `--remove` drops
// exactly those, Codex's trust entries follow them, and `memdir doctor` checks their commands
// (docs/design.md#agent-setup, docs/integrations.md#one-command-setup-memdir-setup-agent).
//
// Recognised by what setup itself writes, not by the launcher in front of it: `--command` may
// be any wrapper (`~/bin/md`, `npx -y memdir`, a typo), and a handler recognised only when its
// command named memdir was left in place by the next setup, which then added a second set beside
// it (one hook per event per run, each of them run by the agent).

/** `memdir … hook` anywhere in the line: entries earlier setups wrote, or a user by hand. */
const NAMES_MEMDIR = /(^|[\s/"'])memdir(\.js)?["']?\s+(?:.*\s)?hook(\s|$)/;

/**
 * The tail setup writes after the command (`hookCommand` in setup-common.ts): `hook <event>`,
 * `--host <host>` where the host is named, after a launcher of at least one word.
 */
const SETUP_TAIL = /\S\s+hook\s+([a-z]+(?:-[a-z]+)*)(?:\s+--host\s+[a-z-]+)?\s*$/;

/** The `name` Gemini CLI's hooks carry (`groupHooks`: `memdir-<event>`). */
const SETUP_NAME = /^memdir-([a-z]+(?:-[a-z]+)*)$/;

/**
 * Whether a hook command line is memdir's: it runs `memdir … hook` (`memdir hook stop`,
 * `node /x/bin/memdir.js hook stop`), or it ends the way setup ends every hook line, `hook
 * <event>` for one of memdir's events in the spelling setup writes (`~/bin/md hook stop`,
 * `memdir-typo hook before-agent`, `wrapper hook stop --host copilot`), whatever launcher comes first.
 *
 * @example
 * isMemdirCommand("/home/me/bin/md hook session-start") // true
 * isMemdirCommand("notify-send done") // false
 */
export function isMemdirCommand(command: unknown): boolean {
  if (typeof command !== "string") return false;
  if (NAMES_MEMDIR.test(command)) return true;
  const tail = SETUP_TAIL.exec(command);
  return tail !== null && normalizeHookEvent(tail[1]) !== null;
}

/**
 * Whether one hook handler (`{type, command}`, Copilot CLI's `{type, bash}`, Cursor's
 * `{command}`) is memdir's: its command is ({@link isMemdirCommand}), or it carries the name
 * setup gives it where the agent's format has one (Gemini CLI's `"name": "memdir-stop"`).
 */
export function isMemdirHandler(handler: unknown): boolean {
  if (typeof handler !== "object" || handler === null || Array.isArray(handler)) return false;
  const { command, bash, name } = handler as Record<string, unknown>;
  if (isMemdirCommand(command) || isMemdirCommand(bash)) return true;
  const named = typeof name === "string" ? SETUP_NAME.exec(name) : null;
  return named !== null && normalizeHookEvent(named[1]) !== null;
}
