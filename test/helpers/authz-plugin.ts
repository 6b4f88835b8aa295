// The test authorization plugin (test/fixtures/authz-plugin/plugin.js) as a process of its own on a unix socket:
// its rules are a file it reads at every call, its calls a JSON-lines file.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const PLUGIN = path.join(__dirname, '..', 'fixtures', 'authz-plugin', 'plugin.js');

export interface AuthzRule {
  match: string;
  allow?: boolean;
  msg?: string;
  err?: string;
  status?: number;
  body?: string;
}

export interface AuthzCall {
  call: 'Plugin.Activate' | 'AuthZReq' | 'AuthZRes';
  [k: string]: any;
}

export interface AuthzPlugin {
  socket: string;
  dir: string;
  /** Replaces the plugin's rules (read at its next call). */
  rules(r: { req?: AuthzRule[]; res?: AuthzRule[]; activate?: 'ok' | 'noauthz' | 'error' }): void;
  calls(): AuthzCall[];
  clearCalls(): void;
  stop(): Promise<void>;
}

export async function startAuthzPlugin(socket: string, dir: string): Promise<AuthzPlugin> {
  fs.mkdirSync(dir, { recursive: true });
  fs.rmSync(socket, { force: true });
  const child: ChildProcess = spawn(process.execPath, [PLUGIN, socket, dir], { stdio: 'ignore' });
  for (let i = 0; i < 250 && !fs.existsSync(socket); i++) await new Promise((r) => setTimeout(r, 20));
  if (!fs.existsSync(socket)) throw new Error('the authz plugin did not start');
  const callsFile = path.join(dir, 'calls.jsonl');
  return {
    socket,
    dir,
    rules: (r) => fs.writeFileSync(path.join(dir, 'rules.json'), JSON.stringify(r)),
    calls: () => (fs.existsSync(callsFile) ? fs.readFileSync(callsFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuthzCall) : []),
    clearCalls: () => fs.rmSync(callsFile, { force: true }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await gone;
      }
      fs.rmSync(socket, { force: true });
    },
  };
}
