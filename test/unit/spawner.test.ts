import * as fs from 'node:fs';
import { CommandFailed, Spawner } from '../../src/spawner';

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

  it('fails what a killed helper had, and starts a new one for the next command', async () => {
    await s.run('true', []);
    const child = (s as unknown as { child: { pid: number } }).child;
    const slow = s.run('sleep', ['2']);
    process.kill(child.pid, 'SIGKILL');
    await expect(slow).rejects.toThrow('the command helper exited');
    expect((await s.run('echo', ['again'])).stdout).toBe('again\n');
  });

  it('leaves no file of a finished command in its folder', async () => {
    const dir = (s as unknown as { dir: string }).dir;
    const before = new Set(fs.readdirSync(dir)); // (the killed helper's orphaned sleep may still hold its own two)
    await Promise.all([s.run('cat', [], { input: 'x' }), s.run('false', []).catch(() => undefined), s.run('echo', ['y'])]);
    expect(fs.readdirSync(dir).filter((f) => !before.has(f))).toEqual([]);
  });
});
