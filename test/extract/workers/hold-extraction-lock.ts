/**
 * Test worker: holds the extraction lock of the memory dir in argv[2] (as a running
 * `memdir extract` would), prints "locked", and keeps it until killed.
 */
import { tryExtractionLock } from "../../../src/extract/extraction-queue.ts";

const lock = await tryExtractionLock(process.argv[2]);
process.stdout.write(lock ? "locked\n" : "busy\n");
setInterval(() => {}, 60_000);
