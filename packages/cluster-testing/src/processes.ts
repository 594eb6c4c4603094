import type { ChildProcess } from 'node:child_process';

/** Asks a child process to stop (SIGTERM), and kills it when it has not exited after `graceMs`. */
export function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
  });
}
