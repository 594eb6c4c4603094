import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { ensureDebianPackage } from './debian-package.js';
import { freePort } from './free-port.js';
import { stopProcess } from './processes.js';

export const REDIS_SERVER = process.env.REDIS_SERVER_PATH || '/usr/bin/redis-server';

export interface RunningRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** One PING over a raw socket: true when Redis answers +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/**
 * Starts a private Redis (Debian's redis-server, installed when missing) on a free port, in memory only:
 * no snapshots, no append-only file, nothing written next to the caller.
 */
export async function startRedis(options: { port?: number } = {}): Promise<RunningRedis> {
  ensureDebianPackage(REDIS_SERVER, 'redis-server');
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${stderr.trim()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer PING on port ${port} within 10 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => stopProcess(child),
  };
}
