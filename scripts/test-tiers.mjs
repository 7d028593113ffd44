// The suite's two tiers (AGENTS.md, "Tests in tiers"). The fast tier is every test file that starts
// no process of memdir's own (the CLI, the MCP server, the helper), no browser, no real agent, no
// installed package, and is not one of the git-heavy suites; `npm run test:fast` runs it alone,
// `npm test` runs it first and then the slow tier. A file is slow when it sits in one of
// SLOW_FOLDERS or is listed in SLOW_FILES; test/test-tiers.test.ts fails when a fast file starts
// one of those processes (PROCESS_MARKERS), so a new process test cannot slip into the fast tier.
import path from "node:path";

/** Folders under test/ whose files are all slow: real agents, the fault suite, sync over git, the helper. */
export const SLOW_FOLDERS = ["integration", "reliability", "sync", "helper"];

/**
 * Files in a slow folder that start no process and hold no git repository: pure checks that sit
 * beside their family's process tests (the path-containment cases, the sync planner, the helper's
 * in-process request handling), relative to test/ with "/" separators, each with why it is fast.
 */
export const FAST_FILES = {
  "reliability/hostile-paths.test.ts": "hostile names against the path checks, in-process",
  "reliability/hostile-paths-agent.test.ts": "hostile names through the agent's tools, in-process",
  "sync/plan.test.ts": "the sync planner as a pure function",
  "helper/requests.test.ts": "the helper's request handling called in this process",
  "helper/change-watch.test.ts": "the helper's change watch called in this process",
};

/** Slow files elsewhere, relative to test/ with "/" separators, each with why. */
export const SLOW_FILES = {
  // Hooks as their hosts run them: exit codes, stdin left open, time bounds, background extraction.
  "cli/extract-coalescing.test.ts": "extractions started as processes, coalesced across them",
  "cli/hook-codex-transcript.test.ts": "the stop hook's background extraction",
  "cli/hook-conformance.test.ts": "hook exit codes and a stdin the host never closes",
  "cli/hook-cursor.test.ts": "Cursor's hook processes and their background extraction",
  "cli/hook-gemini-transcript.test.ts": "the stop hook's background extraction",
  "cli/hook-stop.test.ts": "the stop hook's background extraction",
  "cli/hook-timeout.test.ts": "a hook process at its time bound",
  "cli/hook-warm-up.test.ts": "session start spawns the warm-up process",
  "cli/hook.test.ts": "a hook's exit code on bad stdin",
  "hooks/bounded.test.ts": "a hook process from the installed package",
  "hooks/prompt-hook-process.test.ts": "what a prompt hook process loads",
  // Other processes: the terminal chat, the bin entry, the helper's fast path, the MCP server over stdio.
  "cli/chat.test.ts": "chat reads the process's own stdin",
  "cli/list.test.ts": "list through bin/memdir.js and the helper",
  "cli/version.test.ts": "bin/memdir.js --version",
  "cli/progress.test.ts": "the CLI on a pseudo-terminal (script) and through a pipe",
  "cli/setup.test.ts": "setup finds the memdir on a PATH it is given, as an agent's shell would",
  "cli/setup-first-run.test.ts": "the commands setup writes, run through /bin/sh and as processes",
  "hosts/codex/hook-trust.test.ts": "setup and doctor as processes beside Codex's config",
  "dream/lock.test.ts": "a lock held by another process",
  "entry-loading.test.ts": "what a fresh process loads per entry",
  "examples.test.ts": "the TypeScript compiler over the sources, for the examples a user copies",
  "mcp/inbox.test.ts": "the MCP server over stdio",
  "mcp/model-opt-in.test.ts": "the MCP server over stdio",
  "mcp/protocol.test.ts": "the MCP server over stdio",
  "mcp/one-explicit-save.test.ts": "the MCP server over stdio and a hook process",
  "mcp/stdio.test.ts": "the MCP server over stdio",
  "memdir/cache/persisted-cache.test.ts": "a fresh process reads the cache files",
  "memdir/location/project-key.test.ts": "two machines syncing through a bare repo",
  "memdir/scan/scan-watch.test.ts": "watchers against writes from another process",
  "package-import.test.ts": "the packed package imported in a child",
  "package.test.ts": "npm pack and the installed package",
  "ui/browser.test.ts": "a real browser",
  "ui/server.test.ts": "a CLI write while the web view runs",
  // Git-heavy: hundreds of commits and undos against real git.
  "cli/undo-differential.test.ts": "random change sequences undone against git and the journal",
  "dream/history.test.ts": "history against real git",
  "dream/undo-exact.test.ts": "exact undo against real git",
};

/**
 * What a fast file must not contain: the ways a test starts memdir's processes, a browser, an agent
 * or the package (test/helpers/cli.ts, node-entry.ts and the helpers built on them).
 */
export const PROCESS_MARKERS = [
  "runCli(",
  "runProcess(",
  "startProcess(",
  "cliNodeArgs(",
  "nodeArgsFor(",
  "StdioClientTransport",
  "playwright",
  "helpers/agent-install",
  "helpers/claude-code",
  "helpers/hook-extraction",
  "helpers/memdir-package",
  "helpers/sync-machines",
];

/** "fast" or "slow" for a test file path relative to test/ (either separator). */
export function tierOf(file) {
  const parts = file.split(/[\\/]/);
  const relative = parts.join(path.posix.sep);
  if (parts.length > 1 && SLOW_FOLDERS.includes(parts[0]))
    return Object.hasOwn(FAST_FILES, relative) ? "fast" : "slow";
  return Object.hasOwn(SLOW_FILES, relative) ? "slow" : "fast";
}
