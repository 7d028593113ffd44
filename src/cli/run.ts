// Runs the CLI from sources (tests spawn this through tsx so they always test the current code).
import "./compile-cache.ts";
import { main, mustExitAfter } from "./main.ts";

const code = await main(process.argv);
process.exitCode = code;
// A hook whose host never closes stdin (or whose aborted work left a handle open) must still end.
if (mustExitAfter(process.argv)) process.stdout.write("", () => process.exit(code));
