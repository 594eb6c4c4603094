import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '@gatewaykit/cluster-testing';
import { keepServerEvidence } from './evidence';
import { SERVER_ENTRY } from './paths';

export { freePort };

export interface ServerProcess {
  port: number;
  baseUrl: string;
  child: ChildProcess;
  /** Everything the server wrote (for assertions that nothing sensitive is logged). */
  output(): string;
  stop(): Promise<void>;
}

/** Starts the demo store (built `dist/src/index.js`) as a child process and waits until it is ready. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    env: {
      ...process.env,
      VENDURE_DISABLE_TELEMETRY: 'true',
      LOG_LEVEL: 'info',
      EXIT_WITH_PARENT: '1',
      ...env,
      PORT: String(port),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('VENDURE_READY')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) =>
      reject(new Error(`Vendure exited (${code}) before ready:\n${output.slice(-3000)}`)),
    );
  });
  await ready;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: async () => {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      });
      // At the end of the server's life its database file holds everything it ever stored.
      keepServerEvidence(env.DB_PATH, output);
    },
  };
}
