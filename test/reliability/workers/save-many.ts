// Child process for write-concurrency.test.ts: saves `count` memories through the single writer,
// optionally removing every `removeEvery`-th one right after saving it, and prints what it kept.
// Usage: node --import tsx save-many.ts <memoryDir> <workerId> <count> [removeEvery]
import { removeMemory, saveMemory } from "../../../src/memdir/write/write.ts";

const [memoryDir, workerId, countText, removeEveryText] = process.argv.slice(2);
const count = Number(countText);
const removeEvery = Number(removeEveryText ?? 0);
const kept: string[] = [];
const removed: string[] = [];
for (let i = 0; i < count; i++) {
  const saved = await saveMemory(
    memoryDir,
    {
      type: "project",
      description: `worker ${workerId} memory ${i}`,
      body: `Saved by worker ${workerId} as number ${i}.\n`,
    },
    { lock: { timeoutMs: 60_000 } },
  );
  if (removeEvery > 0 && i % removeEvery === removeEvery - 1) {
    await removeMemory(memoryDir, saved.file, { lock: { timeoutMs: 60_000 } });
    removed.push(saved.file);
  } else kept.push(saved.file);
}
process.stdout.write(`${JSON.stringify({ kept, removed })}\n`);
