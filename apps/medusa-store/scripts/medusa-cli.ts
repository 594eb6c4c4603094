import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

export const APP_DIR = resolve(__dirname, '..');
const CLI = createRequire(__filename).resolve('@medusajs/cli/cli.js');

function spawnCli(args: string[], env: NodeJS.ProcessEnv, log: WriteStream | undefined): ChildProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: APP_DIR,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => log?.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => log?.write(chunk));
  return child;
}

/** Runs one `medusa` command (db:migrate, exec …) to completion; its output goes to the log file. */
export function runMedusa(args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<void> {
  const log = createWriteStream(logFile, { flags: 'a' });
  return new Promise((resolvePromise, reject) => {
    const child = spawnCli(args, env, log);
    child.on('error', reject);
    child.on('exit', (code) => {
      log.end();
      if (code === 0) resolvePromise();
      else reject(new Error(`medusa ${args.join(' ')} failed with exit code ${code}; see ${logFile}`));
    });
  });
}

export interface RunningMedusa {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
  /** Ends the process at once with `signal` (SIGKILL: a crash, nothing cleaned up) and waits for its exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `medusa start` (never `develop`, which restarts on file changes) and waits for /health.
 * A server that exits during startup (e.g. invalid provider options) rejects with its output's tail.
 */
export async function startMedusa(
  port: number,
  env: NodeJS.ProcessEnv,
  logFile: string,
  timeoutMs = 120_000,
): Promise<RunningMedusa> {
  const log = createWriteStream(logFile, { flags: 'a' });
  let output = '';
  // This machine only unless HOST says otherwise: the demo's admin login and secrets are public.
  const child = spawnCli(
    ['start', '--port', String(port)],
    { ...env, PORT: String(port), HOST: env.HOST || '127.0.0.1' },
    log,
  );
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  let alive = true;
  void exited.then(() => {
    alive = false;
  });
  while (Date.now() < deadline) {
    if (!alive) throw new Error(`medusa start exited during startup:\n${output}`);
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) {
      return {
        url,
        pid: child.pid,
        async stop() {
          if (alive) child.kill('SIGTERM');
          await exited;
          log.end();
        },
        async kill(signal) {
          if (alive) child.kill(signal);
          await exited;
          log.end();
        },
      };
    }
    await new Promise((wait) => setTimeout(wait, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`medusa start did not become healthy within ${timeoutMs} ms:\n${output}`);
}
