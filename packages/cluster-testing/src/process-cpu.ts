import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * CPU time used by groups of processes over a stretch of a benchmark, from Linux's /proc: on a machine
 * whose few cores every process shares, latency under load follows the CPU work a request costs across
 * all of them (store, database, gateway stand-in, load generator), and this says which process spends it.
 */

/** A named set of processes, found again when the meter stops (a new database backend counts too). */
export interface CpuGroup {
  name: string;
  pids: () => number[];
}

interface Ticks {
  own: number;
  /** CPU of children that ended and were waited for (a database backend that closed). */
  ended: number;
  parent: number;
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  return ticksPerSecond;
}

function ticksOf(pid: number): Ticks | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name, which may hold spaces: state, ppid, … utime is the 14th field.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const at = (field: number) => Number(fields[field - 3]);
  return { own: at(14) + at(15), ended: at(16) + at(17), parent: at(4) };
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Processes whose parent is `pid`, only those running `command` (e.g. `redis-server`) when given. */
export function childPids(pid: number, command?: string): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const candidate = Number(entry);
    if (!Number.isInteger(candidate) || ticksOf(candidate)?.parent !== pid) continue;
    if (command === undefined || commandOf(candidate) === command) children.push(candidate);
  }
  return children;
}

/** The embedded PostgreSQL of `dataDir`: its postmaster and every backend, or none if it is not running. */
export function postgresPids(dataDir: string): number[] {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return [];
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(postmaster) ? [postmaster, ...childPids(postmaster)] : [];
}

/**
 * The groups both stores' cluster benches measure: each store process by name, then PostgreSQL (the
 * postmaster and its backends), the Redis this process started, the sandbox and this load generator.
 */
export function clusterCpuGroups(options: {
  stores: readonly { name: string; pid: number | undefined }[];
  postgresDataDir: string;
  sandboxPid: number;
}): CpuGroup[] {
  const only = (pid: number | undefined) => () => (pid ? [pid] : []);
  return [
    ...options.stores.map((store) => ({ name: store.name, pids: only(store.pid) })),
    { name: 'postgres', pids: () => postgresPids(options.postgresDataDir) },
    { name: 'redis', pids: () => childPids(process.pid, 'redis-server') },
    { name: 'sandbox', pids: only(options.sandboxPid) },
    { name: 'load generator', pids: only(process.pid) },
  ];
}

interface Sample {
  ticks: number;
  parent: number;
}

function groupSamples(groups: readonly CpuGroup[]): Map<string, Map<number, Sample>> {
  return new Map(
    groups.map((group) => [
      group.name,
      new Map(
        group.pids().flatMap((pid) => {
          const ticks = ticksOf(pid);
          return ticks ? [[pid, { ticks: ticks.own + ticks.ended, parent: ticks.parent }] as const] : [];
        }),
      ),
    ]),
  );
}

/** Starts measuring; `stop()` answers the CPU milliseconds each group used since, by name. */
export function startCpuMeter(groups: readonly CpuGroup[]): { stop(): Map<string, number> } {
  const before = groupSamples(groups);
  return {
    stop() {
      const after = groupSamples(groups);
      const msPerTick = 1000 / clockTicks();
      return new Map(
        groups.map((group) => {
          const then = before.get(group.name) ?? new Map<number, Sample>();
          const now = after.get(group.name) ?? new Map<number, Sample>();
          let ticks = 0;
          for (const [pid, sample] of now) ticks += sample.ticks - (then.get(pid)?.ticks ?? 0);
          // A process that ended meanwhile and was waited for by a parent still in the group (a
          // database backend) had its whole life added to the parent's `ended`: take off what it
          // had used before the meter started.
          for (const [pid, sample] of then) {
            if (!now.has(pid) && now.has(sample.parent)) ticks -= sample.ticks;
          }
          return [group.name, ticks * msPerTick];
        }),
      );
    },
  };
}

/**
 * A table of CPU milliseconds per operation by process group, one column per measured side (`card`,
 * `no-op`, …): a row per group and one for all of them, each with the first column's ratio to the last.
 */
export function cpuTable(sides: { name: string; count: number; cpu: Map<string, number> }[]): string {
  const names = [...new Set(sides.flatMap((side) => [...side.cpu.keys()]))];
  const perOp = (side: (typeof sides)[number], name?: string) => {
    const ms = name ? (side.cpu.get(name) ?? 0) : [...side.cpu.values()].reduce((a, b) => a + b, 0);
    return ms / Math.max(1, side.count);
  };
  const baseline = sides.at(-1);
  const row = (label: string, name?: string) =>
    `  ${label.padEnd(16)}${sides.map((side) => perOp(side, name).toFixed(1).padStart(10)).join('')}${
      baseline && sides.length > 1
        ? `   ${(perOp(sides[0] as (typeof sides)[number], name) / Math.max(0.001, perOp(baseline, name))).toFixed(2)}x`
        : ''
    }`;
  return [
    `  ${'CPU ms per op'.padEnd(16)}${sides.map((side) => side.name.padStart(10)).join('')}`,
    ...names.map((name) => row(name, name)),
    row('all processes'),
  ].join('\n');
}
