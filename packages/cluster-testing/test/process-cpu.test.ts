import { describe, expect, it } from 'vitest';
import { clusterCpuGroups, cpuTable } from '../src/index.js';

describe('cpuTable', () => {
  it('prints CPU ms per operation for each group and all of them, with the first side over the last', () => {
    const table = cpuTable([
      {
        name: 'card',
        count: 10,
        cpu: new Map([
          ['server', 300],
          ['database', 100],
        ]),
      },
      {
        name: 'no-op',
        count: 20,
        cpu: new Map([
          ['server', 400],
          ['database', 400],
        ]),
      },
    ]);
    expect(table.split('\n')).toEqual([
      '  CPU ms per op         card     no-op',
      '  server                30.0      20.0   1.50x',
      '  database              10.0      20.0   0.50x',
      '  all processes         40.0      40.0   1.00x',
    ]);
  });
});

describe('clusterCpuGroups', () => {
  it('names each store, then the shared processes, and finds a store process by its pid', () => {
    const groups = clusterCpuGroups({
      stores: [
        { name: 'server-a', pid: process.pid },
        { name: 'worker', pid: undefined },
      ],
      postgresDataDir: '/nonexistent/pg',
      sandboxPid: 424242,
    });
    expect(groups.map((group) => group.name)).toEqual([
      'server-a',
      'worker',
      'postgres',
      'redis',
      'sandbox',
      'load generator',
    ]);
    const pidsOf = (name: string) => groups.find((group) => group.name === name)?.pids();
    expect(pidsOf('server-a')).toEqual([process.pid]);
    // A store not started (no pid) and a database not running are measured as nothing, not as pid 0.
    expect(pidsOf('worker')).toEqual([]);
    expect(pidsOf('postgres')).toEqual([]);
    expect(pidsOf('sandbox')).toEqual([424242]);
    expect(pidsOf('load generator')).toEqual([process.pid]);
  });
});
