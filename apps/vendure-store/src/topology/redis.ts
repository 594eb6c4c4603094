import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';

const REDIS_SERVER = process.env.REDIS_SERVER_PATH || '/usr/bin/redis-server';

/**
 * Redis comes from Debian's `redis-server` package. On a clean machine it is installed here (as root,
 * else with passwordless sudo), the way the storefront tests install Chromium.
 */
export function ensureRedisServer(log: (line: string) => void = () => {}): string {
  if (existsSync(REDIS_SERVER)) return REDIS_SERVER;
  const asRoot = process.getuid?.() === 0;
  const run = (args: string[]) =>
    execFileSync(asRoot ? (args[0] as string) : 'sudo', asRoot ? args.slice(1) : ['-n', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  log('installing redis-server from Debian (apt-get install -y redis-server)');
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', '--no-install-recommends', 'redis-server']);
  if (!existsSync(REDIS_SERVER)) throw new Error(`redis-server is still missing at ${REDIS_SERVER}`);
  return REDIS_SERVER;
}

export interface RunningRedis {
  port: number;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a private redis-server on `port` (loopback, no persistence unless `dir` is given). */
export async function startRedis(options: {
  port: number;
  dir?: string;
  log?: (line: string) => void;
}): Promise<RunningRedis> {
  const binary = ensureRedisServer(options.log);
  const args = ['--port', String(options.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (options.dir) {
    mkdirSync(options.dir, { recursive: true });
    args.push('--dir', options.dir);
  }
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitForPort(options.port, 15_000, () => {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}):\n${output}`);
  });
  return {
    port: options.port,
    url: `redis://127.0.0.1:${options.port}`,
    child,
    stop: () => stopChild(child),
  };
}

export async function waitForPort(
  port: number,
  timeoutMs: number,
  check: () => void = () => {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    check();
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
  });
}
