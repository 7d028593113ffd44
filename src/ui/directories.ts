import fs from "node:fs/promises";
import path from "node:path";
import { readProjectMarker } from "../memdir/location/paths.ts";

/** One memory directory the picker offers. */
export interface DirectoryChoice {
  memoryDir: string;
  /** What the picker shows: the owning project's path when known, else the folder under the root. */
  label: string;
}

async function isDirectory(dir: string): Promise<boolean> {
  return fs.stat(dir).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
}

async function choice(memoryDir: string, fallbackLabel: string): Promise<DirectoryChoice> {
  const marker = await readProjectMarker(memoryDir).catch(() => null);
  return { memoryDir, label: marker?.projectRoot ?? fallbackLabel };
}

/**
 * The memory directories under `root` (`<root>/projects/<project>/memory` and each agent's
 * `<root>/projects/<project>/agents/<agent>/memory`), `current` first even when it lies outside
 * the root (`--dir`). Only these may be opened from the page: a request naming another path is
 * refused, so the page cannot be turned into a reader of any folder.
 */
export async function listMemoryDirectories(root: string, current: string): Promise<DirectoryChoice[]> {
  const found: DirectoryChoice[] = [];
  const projectsDir = path.join(root, "projects");
  const projects = await fs.readdir(projectsDir).catch(() => [] as string[]);
  for (const project of projects.sort()) {
    const memoryDir = path.join(projectsDir, project, "memory");
    if (await isDirectory(memoryDir)) found.push(await choice(memoryDir, project));
    const agents = await fs.readdir(path.join(projectsDir, project, "agents")).catch(() => [] as string[]);
    for (const agent of agents.sort()) {
      const agentDir = path.join(projectsDir, project, "agents", agent, "memory");
      if (await isDirectory(agentDir))
        found.push({ memoryDir: agentDir, label: `${project} · agent ${agent}` });
    }
  }
  const resolved = path.resolve(current);
  const first = found.find((entry) => entry.memoryDir === resolved) ?? (await choice(resolved, resolved));
  return [first, ...found.filter((entry) => entry.memoryDir !== resolved)];
}
