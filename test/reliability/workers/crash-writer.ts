// Child process for write-crash.test.ts: saves memories in a loop until it is killed. Each save
// replaces one of a few fixed files with a new, self-checking version (a large body ending in the
// SHA-256 of its payload) or creates a new file. Prints "ready" after its first save, so the
// parent's kill lands among saves, not during start-up.
// Usage: node --import tsx crash-writer.ts <memoryDir> <lane>
import { createHash } from "node:crypto";
import { saveMemory } from "../../../src/memdir/write/write.ts";

const [memoryDir, lane] = process.argv.slice(2);
for (let n = 0; ; n++) {
  const stamp = `${process.pid}-${n}`;
  // ~64 KB: big enough that a write is not one syscall, so a kill can land in the middle of it.
  const payload = Array.from({ length: 1000 }, (_, i) =>
    `line ${i} of version ${stamp} `.padEnd(63, "."),
  ).join("\n");
  const checksum = createHash("sha256").update(payload).digest("hex");
  const file = n % 3 === 2 ? `new-${lane}-${stamp}.md` : `fixed-${n % 4}.md`;
  await saveMemory(memoryDir, {
    file,
    type: "project",
    description: `crash test version ${stamp}`,
    body: `${payload}\nsha256: ${checksum}\n`,
  });
  if (n === 0) process.stdout.write("ready\n");
}
