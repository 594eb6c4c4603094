import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRedis, startRedis } from '../src/index.js';

/** Sends one inline command and returns Redis's first answer line. */
function command(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${line}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().split('\r\n')[0] ?? '');
    });
    socket.once('error', reject);
  });
}

let redis: RunningRedis;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.stop();
});

describe('startRedis', () => {
  it('starts a real Redis on its own port that stores and returns values', async () => {
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await command(redis.port, 'SET gatewaykit:probe 42')).toBe('+OK');
    expect(await command(redis.port, 'GET gatewaykit:probe')).toBe('$2');
  });

  it('keeps nothing on disk (no snapshots)', async () => {
    expect(await command(redis.port, 'CONFIG GET save')).toBe('*2');
    expect(await command(redis.port, 'CONFIG GET appendonly')).toBe('*2');
  });

  it('stops: the port no longer answers', async () => {
    const second = await startRedis();
    await second.stop();
    await expect(command(second.port, 'PING')).rejects.toThrow();
  });
});
