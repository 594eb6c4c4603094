export {
  type Burst,
  type CallbackRates,
  type ClusterSide,
  callbackPhases,
  inParallel,
  latencyLine,
  percentile,
  printClusterSummary,
  ratios,
  timedBurst,
} from './bench-report.js';
export { CHROMIUM, ensureChromium, launchChromium } from './chromium.js';
export { ensureDebianPackage } from './debian-package.js';
export { freePort } from './free-port.js';
export { type RunningPostgres, startEmbeddedPostgres } from './postgres.js';
export {
  type CpuGroup,
  childPids,
  clusterCpuGroups,
  cpuTable,
  postgresPids,
  startCpuMeter,
} from './process-cpu.js';
export { stopProcess } from './processes.js';
export { REDIS_SERVER, type RunningRedis, startRedis } from './redis.js';
export { type RoundRobinProxy, startRoundRobinProxy } from './round-robin-proxy.js';
export { type RunningSandboxProcess, startSandboxProcess } from './sandbox-process.js';
export { startSteps, stopOnSignals } from './start-steps.js';
export { keepVitestExitCode } from './vitest-exit-code.js';
