// bin/berthd entry point: flags → daemon; clean shutdown on SIGTERM/SIGINT.
import { parseArgs, USAGE, UsageError } from './config';
import { ConfigFileError, effectiveLogLevel, loadDaemonConfig } from './daemon-config';
import { createLogger } from './log';
import { startDaemon } from './daemon';
import { StartError } from './http/listeners';
import { BERTH_VERSION } from './version';
import { API_NICE, raiseApiThread } from './runtime/priority';
import { steadyJit } from './runtime/jit';
import { compactHeapSoon } from './runtime/heap';

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`berthd: ${err.message}\nSee 'berthd --help'.\n`);
      process.exit(125);
    }
    throw err;
  }
  if (parsed === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (parsed === 'version') {
    process.stdout.write(`berth version ${BERTH_VERSION}\n`);
    return;
  }
  let config;
  try {
    config = loadDaemonConfig(parsed);
  } catch (err) {
    if (err instanceof ConfigFileError) {
      process.stderr.write(`berthd: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(effectiveLogLevel(config));
  // The API's thread ahead of the containers' output it routes (src/runtime/priority.ts), before any thread starts.
  const nice = process.env.BERTH_API_NICE !== undefined ? Number(process.env.BERTH_API_NICE) : API_NICE;
  if (nice < 0 && !raiseApiThread(nice)) logger.debug('the main thread keeps its priority (chrt missing or no privilege)');
  // A bug in one request must never take the daemon (and every client) down with it.
  process.on('uncaughtException', (err) => logger.error('uncaught exception', { err: String(err?.stack ?? err) }));
  process.on('unhandledRejection', (err) => logger.error('unhandled rejection', { err: String((err as Error)?.stack ?? err) }));
  const daemon = await startDaemon(config, logger);
  let closing = false;
  const shutdown = (sig: string) => {
    if (closing) return;
    closing = true;
    logger.info(`received ${sig}, shutting down`);
    // containers keep running (they belong to containerd): shutdown-timeout bounds berthd's own clean-up
    const force = setTimeout(() => process.exit(0), Math.max(1, daemon.config.shutdownTimeout) * 1000);
    force.unref();
    daemon.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGHUP', () => void daemon.reload());
  // start-up is over: the optimizing compiler's usual budget from here on (runtime/jit.ts)
  steadyJit();
  // and start-up's garbage given back now rather than ~8 s later (runtime/heap.ts)
  compactHeapSoon();
  logger.info('berth is ready', { version: BERTH_VERSION });
}

main().catch((err) => {
  if (err instanceof StartError) {
    process.stderr.write(`berthd: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`berthd: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
