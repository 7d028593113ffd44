// Child process for bad-input.test.ts: header-scans a memory dir holding a huge memory file and
// reads that file capped, then prints how much the resident set grew and what came back.
// Usage: node --import tsx capped-read.ts <memoryDir> <file>
import path from "node:path";
import { readMemoryCapped } from "../../../src/memdir/fs/read.ts";
import { scanHeaders } from "../../../src/memdir/scan/scan.ts";

const [memoryDir, file] = process.argv.slice(2);
const mb = (bytes: number) => bytes / 1024 / 1024;
// Warm the code paths on a tiny read first, so module compilation is not counted as growth.
await scanHeaders(path.join(memoryDir, "does-not-exist"));
const before = process.memoryUsage.rss();
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 1);
const started = performance.now();
const headers = await scanHeaders(memoryDir, { cache: null });
const read = await readMemoryCapped(path.join(memoryDir, file));
const elapsedMs = performance.now() - started;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage.rss());
const header = headers.find((h) => h.file === file);
process.stdout.write(
  `${JSON.stringify({
    rssGrowthMb: mb(peak - before),
    description: header?.description ?? null,
    truncated: read.truncated,
    bytes: read.bytes,
    fileBytes: read.fileBytes,
    contentLength: read.content.length,
    elapsedMs,
  })}\n`,
);
