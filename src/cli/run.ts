// Runs the CLI from sources (tests spawn this through tsx so they always test the current code).
import { main } from "./main.ts";

process.exitCode = await main(process.argv);
