import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from './free-port.js';
import { stopProcess } from './processes.js';

export interface RunningSandboxProcess {
  /** The sandbox's base URL (the gateway API base, its dashboard, `/_sandbox/` control API). */
  url: string;
  port: number;
  /** The sandbox process (its CPU, process-cpu.ts). */
  pid: number;
  /**
   * One call of the control API (packages/sandbox/src/control.ts), JSON in and out; throws on an answer
   * other than 2xx. E.g. `control('POST', '/_sandbox/chaos', { drop: true })`, `control('GET',
   * '/_sandbox/state')`.
   */
  control<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/**
 * The `gatewaykit-sandbox` bin of the workspace's @gatewaykit/sandbox, resolved from the caller's folder
 * (this package does not depend on the sandbox, whose tests use this package). It runs the built CLI.
 */
function sandboxBin(): string {
  const require = createRequire(join(process.cwd(), 'package.json'));
  return join(dirname(require.resolve('@gatewaykit/sandbox/package.json')), 'bin', 'gatewaykit-sandbox.cjs');
}

/**
 * Starts the gateway sandbox's CLI in its own process on a free port, so that its answers and callbacks
 * never wait on the caller's event loop (a load generator's, say), and resolves once its control API
 * answers. The child is killed when the caller exits without stopping it.
 */
export async function startSandboxProcess(options: {
  merchants: readonly { gatewayNo: string; signKey: string }[];
  callbackTimeScale?: number;
}): Promise<RunningSandboxProcess> {
  const port = await freePort();
  const args = [sandboxBin(), '--port', String(port)];
  for (const merchant of options.merchants)
    args.push('--merchant', `${merchant.gatewayNo}:${merchant.signKey}`);
  if (options.callbackTimeScale !== undefined)
    args.push('--callback-time-scale', String(options.callbackTimeScale));
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`sandbox ${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  };
  const stop = async () => {
    await stopProcess(child);
    process.removeListener('exit', killOnExit);
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      process.removeListener('exit', killOnExit);
      throw new Error(`gatewaykit-sandbox exited (${child.exitCode}): ${stderr.trim()}`);
    }
    if (
      await control('GET', '/_sandbox/chaos').then(
        () => true,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`gatewaykit-sandbox did not answer on port ${port} within 15 s: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, port, pid: child.pid as number, control, stop };
}
