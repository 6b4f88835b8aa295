import * as winston from 'winston';

export type Logger = winston.Logger;

export function createLogger(level = 'info'): Logger {
  return winston.createLogger({
    level: level === 'warn' ? 'warn' : level === 'fatal' ? 'error' : level,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
  });
}

/** A logger that drops everything (tests). */
export function silentLogger(): Logger {
  return winston.createLogger({ silent: true, transports: [new winston.transports.Console({ silent: true })] });
}
