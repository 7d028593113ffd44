// Child process for lease.test.ts: takes the memory dir's writer lock, says "held" on stdout, keeps
// it until its stdin closes, then saves a memory under it and prints "saved" or the error's code.
// Usage: node --import tsx hold-lock.ts <memoryDir>
import { isMemdirError } from "../../../src/errors.ts";
import { withMemoryLock } from "../../../src/memdir/fs/lock.ts";
import { saveMemory } from "../../../src/memdir/write/write.ts";

const [memoryDir] = process.argv.slice(2);
const stdinClosed = new Promise<void>((resolve) => {
  process.stdin.on("end", resolve).resume();
});
try {
  await withMemoryLock(memoryDir, async () => {
    process.stdout.write("held\n");
    await stdinClosed;
    await saveMemory(memoryDir, { file: "project-holder.md", type: "project", description: "h", body: "h" });
  });
  process.stdout.write("saved\n");
} catch (error) {
  process.stdout.write(`${isMemdirError(error) ? error.code : String(error)}\n`);
}
