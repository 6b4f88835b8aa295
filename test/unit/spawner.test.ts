import * as fs from 'node:fs';
import * as path from 'node:path';
import { CommandFailed, CommandLost, Spawner } from '../../src/spawner';

describe('Spawner (commands run by a small sh helper)', () => {
  const s = new Spawner();
  afterAll(() => s.close());

  it('gives stdout and stderr, stdin and added variables', async () => {
    expect(await s.run('echo', ['a b', "it's", '$HOME', '"q"'])).toEqual({ stdout: 'a b it\'s $HOME "q"\n', stderr: '' });
    expect((await s.run('cat', [], { input: '{"x": 1}\n' })).stdout).toBe('{"x": 1}\n');
    expect((await s.run('sh', ['-c', 'echo "$X $Y" >&2'], { env: { X: 'one', Y: "t'wo" } })).stderr).toBe("one t'wo\n");
  });

  it('fails with the exit status and the output, as execFile', async () => {
    const err = (await s.run('sh', ['-c', 'echo out; echo err >&2; exit 3']).catch((e) => e)) as CommandFailed;
    expect(err).toBeInstanceOf(CommandFailed);
    expect([err.code, err.stdout, err.stderr]).toEqual([3, 'out\n', 'err\n']);
    expect(((await s.run('/nonexistent/binary', []).catch((e) => e)) as CommandFailed).code).toBe(127);
  });

  it('runs commands at the same time without mixing their output', async () => {
    const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => s.run('sh', ['-c', `sleep 0.0${i % 5}; echo ${i}`])));
    expect(outs.map((o) => o.stdout)).toEqual(Array.from({ length: 20 }, (_, i) => `${i}\n`));
  });

  it('a word with a newline runs directly', async () => {
    expect((await s.run('echo', ['a\nb'])).stdout).toBe('a\nb\n');
  });

  /** The children of `pid` (from /proc). */
  const childrenOf = (pid: number): number[] =>
    fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try {
        const st = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
        return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    }).map(Number);
  const helperPid = () => (s as unknown as { current: { child: { pid: number } } }).current.child.pid;
  /** Waits until the helper runs `n` subshells, each with its command started; returns [subshell, command] pairs. */
  async function running(helper: number, n: number): Promise<[number, number][]> {
    // (a deadline, not a count of tries: on a loaded machine one walk of /proc can take long)
    for (const t0 = Date.now(); Date.now() - t0 < 20_000; ) {
      const pairs = childrenOf(helper).map((sub) => [sub, childrenOf(sub)[0]] as [number, number]).filter(([, c]) => c);
      if (pairs.length >= n) return pairs;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the commands did not start');
  }

  it('a command under way when the helper is killed still answers; the next command starts a new helper', async () => {
    await s.run('true', []);
    const helper = helperPid();
    // the command lasts until the test lets it end (a fixed sleep could be over before a loaded machine sees it run)
    const gate = `${fs.mkdtempSync('/tmp/spawner-')}/go`;
    const slow = s.run('sh', ['-c', `while [ ! -e ${gate} ]; do sleep 0.01; done; echo done`]);
    await running(helper, 1);
    process.kill(helper, 'SIGKILL');
    fs.writeFileSync(gate, '');
    expect(await slow).toEqual({ stdout: 'done\n', stderr: '' });
    fs.rmSync(path.dirname(gate), { recursive: true });
    expect((await s.run('echo', ['again'])).stdout).toBe('again\n');
    expect(helperPid()).not.toBe(helper);
  });

  it('commands the killed helper had not begun run on a new one', async () => {
    await s.run('true', []);
    const helper = helperPid();
    process.kill(helper, 'SIGSTOP'); // it reads nothing more: the lines wait in its input
    const outs = Promise.all([1, 2, 3].map((i) => s.run('echo', [`n${i}`])));
    await new Promise((r) => setTimeout(r, 50));
    process.kill(helper, 'SIGKILL');
    expect((await outs).map((o) => o.stdout)).toEqual(['n1\n', 'n2\n', 'n3\n']);
  });

  it('one begun whose answer was lost with the helper: run again if idempotent, else CommandLost', async () => {
    await s.run('true', []);
    let helper = helperPid();
    const lost = s.run('sleep', ['30']).catch((e) => e);
    const [[sub, cmd]] = await running(helper, 1);
    for (const pid of [sub, cmd, helper]) process.kill(pid, 'SIGKILL');
    const err = (await lost) as CommandLost;
    expect(err).toBeInstanceOf(CommandLost);
    expect([err.started, err.message]).toEqual([true, 'the command helper died while sleep 30 ran: whether it did its work is not known']);

    await s.run('true', []);
    helper = helperPid();
    const marker = `${fs.mkdtempSync('/tmp/spawner-')}/runs`;
    const again = s.run('sh', ['-c', `echo x >> ${marker}; sleep 30`], { idempotent: true }).catch((e) => e);
    const [[sub2, cmd2]] = await running(helper, 1);
    for (const pid of [sub2, cmd2, helper]) process.kill(pid, 'SIGKILL');
    // it runs again on the new helper (and is killed there in turn, to end the test)
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (!fs.existsSync(marker) || fs.readFileSync(marker, 'utf8') !== 'x\nx\n') return;
        clearInterval(t);
        resolve();
      }, 10);
    });
    const helper3 = helperPid();
    const [[sub3, cmd3]] = await running(helper3, 1);
    for (const pid of [sub3, cmd3, helper3]) process.kill(pid, 'SIGKILL');
    expect(((await again) as CommandLost).message).toBe(`the command helper died while sh -c echo x >> ${marker}; sleep 30 ran: whether it did its work is not known`);
    fs.rmSync(path.dirname(marker), { recursive: true });
  });

  it('leaves no file of a finished command in its folder', async () => {
    const dir = (s as unknown as { dir: string }).dir;
    const before = new Set(fs.readdirSync(dir)); // (the killed helper's orphaned sleep may still hold its own two)
    await Promise.all([s.run('cat', [], { input: 'x' }), s.run('false', []).catch(() => undefined), s.run('echo', ['y'])]);
    expect(fs.readdirSync(dir).filter((f) => !before.has(f))).toEqual([]);
  });
});
