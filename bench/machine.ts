/** The machine a benchmark ran on, for the report (figures mean little without it). */
import fs from "node:fs";
import os from "node:os";

export interface MachineInfo {
  nproc: number;
  cpu: string;
  node: string;
  platform: string;
  memoryGb: number;
  /** 1-minute load average when the bench started and ended (other work on the machine skews figures). */
  loadAverage: { start: number; end?: number };
}

/** nproc, the CPU model from /proc/cpuinfo (else `os.cpus()`), the Node version. */
export function machineInfo(): MachineInfo {
  let cpu = os.cpus()[0]?.model ?? "unknown";
  try {
    const line = fs
      .readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .find((l) => l.startsWith("model name"));
    if (line) cpu = line.slice(line.indexOf(":") + 1).trim();
  } catch {
    // not Linux: os.cpus() already gave a model
  }
  return {
    nproc: os.availableParallelism(),
    cpu,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    loadAverage: { start: Math.round(os.loadavg()[0] * 100) / 100 },
  };
}
