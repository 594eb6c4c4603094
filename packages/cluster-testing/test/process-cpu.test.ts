import { describe, expect, it } from 'vitest';
import { cpuTable } from '../src/index.js';

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
