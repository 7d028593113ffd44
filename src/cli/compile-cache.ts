import module from "node:module";

// Imported first by the CLI's entry (bin/memdir.js, src/cli/run.ts): on Node 22.1+ the code
// of every module loaded after this one (the command, a hook's recall engine) is compiled once
// and then read from Node's on-disk compile cache (in the OS temp dir), since a hook starts a
// fresh process per prompt (docs/design.md#the-prompt-hook-process). Node 20 has no such cache; nothing happens there.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
