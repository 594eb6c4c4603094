import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandboxProcess, startSandboxProcess } from '../src/index.js';

const MERCHANT = { gatewayNo: '87654321', signKey: 'cluster-testing-sandbox-process-key' };

let sandbox: RunningSandboxProcess;

beforeAll(async () => {
  sandbox = await startSandboxProcess({ merchants: [MERCHANT] });
});

afterAll(async () => {
  await sandbox?.stop();
});

describe('startSandboxProcess', () => {
  it('runs the sandbox CLI on its own port with the given merchants, driven over its control API', async () => {
    expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`);
    const state = await sandbox.control<{ merchants: { gatewayNo: string }[]; orders: unknown[] }>(
      'GET',
      '/_sandbox/state',
    );
    expect(state.merchants).toEqual([{ gatewayNo: MERCHANT.gatewayNo }]);
    expect(state.orders).toEqual([]);
    expect(await sandbox.control('POST', '/_sandbox/chaos', { drop: true })).toEqual({ drop: true });
    await expect(sandbox.control('POST', '/_sandbox/chaos', { copies: 0 })).rejects.toThrow(/answered 400/);
  });

  it('stops: the port no longer answers', async () => {
    const second = await startSandboxProcess({ merchants: [MERCHANT] });
    await second.stop();
    await expect(second.control('GET', '/_sandbox/state')).rejects.toThrow();
  });
});
