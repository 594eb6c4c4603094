import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Makes sure a program from Debian is installed, installing its package on a clean machine (CI runs as
 * root; elsewhere passwordless sudo is tried). Progress goes to stdout: an install can take a minute.
 */
export function ensureDebianPackage(binary: string, debianPackage: string): void {
  if (existsSync(binary)) return;
  const asRoot = process.getuid?.() === 0;
  const run = (args: string[]) =>
    execFileSync(asRoot ? args[0]! : 'sudo', asRoot ? args.slice(1) : ['-n', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  console.log(
    `[cluster-testing] installing ${debianPackage} from Debian (apt-get install -y ${debianPackage})`,
  );
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', '--no-install-recommends', debianPackage]);
  if (!existsSync(binary)) throw new Error(`${binary} is still missing after installing ${debianPackage}`);
}
