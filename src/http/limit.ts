// Bounded concurrency for the expensive requests (builds, pulls, pushes, commits, image load/save, export): at most
// `running` at once and `queued` more waiting their turn in arrival order; beyond that the request is answered 429
// at once, before its handler has started anything. A queued request whose client goes away leaves the queue.
import type { NextFunction, Request, Response } from 'express';
import { BerthError } from '../errors';

export interface ConcurrencyLimits {
  running: number;
  queued: number;
}

export const DEFAULT_CONCURRENCY: ConcurrencyLimits = { running: 8, queued: 128 };

/** The routes (after the version prefix) whose work is long and heavy. */
const EXPENSIVE: [string, RegExp][] = [
  ['POST', /^\/build\/?$/],
  ['POST', /^\/images\/create\/?$/],
  ['POST', /^\/images\/load\/?$/],
  ['GET', /^\/images\/get\/?$/],
  ['GET', /^\/images\/.+\/get\/?$/],
  ['POST', /^\/images\/.+\/push\/?$/],
  ['POST', /^\/commit\/?$/],
  ['GET', /^\/containers\/[^/]+\/export\/?$/],
];

export function isExpensive(method: string, pathname: string): boolean {
  return EXPENSIVE.some(([m, re]) => m === method && re.test(pathname));
}

export class ConcurrencyGate {
  private active = 0;
  private readonly waiting: { go: () => void }[] = [];

  constructor(readonly limits: ConcurrencyLimits) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with the release function once the request may run; throws 429 when the queue is full too. */
  enter(gone: (onGone: () => void) => void): Promise<() => void> {
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.active--;
      const next = this.waiting.shift();
      if (next) next.go();
    };
    if (this.active < this.limits.running) {
      this.active++;
      return Promise.resolve(release);
    }
    if (this.waiting.length >= this.limits.queued)
      return Promise.reject(new BerthError('TooManyRequests', `too many concurrent builds, pulls, pushes, commits, image loads, saves and exports: ${this.active} running and ${this.waiting.length} waiting (berth's limit); try again later`));
    return new Promise((resolve) => {
      const w = {
        go: () => {
          this.active++;
          resolve(release);
        },
      };
      this.waiting.push(w);
      gone(() => {
        const i = this.waiting.indexOf(w);
        if (i >= 0) this.waiting.splice(i, 1);
      });
    });
  }

  /** The express middleware: expensive routes pass through the gate; the slot is freed when the response closes. */
  middleware(onError: (res: Response, err: unknown, req: Request) => void) {
    return (req: Request, res: Response, next: NextFunction): void => {
      const q = req.url.indexOf('?');
      if (!isExpensive(req.method, q < 0 ? req.url : req.url.slice(0, q))) return next();
      this.enter((onGone) => res.once('close', onGone)).then(
        (release) => {
          if (res.destroyed || res.writableEnded) return release();
          res.once('close', release);
          next();
        },
        (err) => onError(res, err, req),
      );
    };
  }
}
