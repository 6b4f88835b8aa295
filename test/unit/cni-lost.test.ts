// A CNI ADD the command helper died under (src/spawner.ts: CommandLost, begun): undone with the list's DEL, then made
// once more (the spec: no second ADD for the same container and interface without a DEL between); DEL and CHECK
// are run again by the helper itself (idempotent), an ADD lost twice is a clear error.
import { addNetworkList, type NetConfList } from '../../src/network/cni';
import { CommandLost, spawner, type RunOptions } from '../../src/spawner';

const list: NetConfList = { cniVersion: '1.0.0', name: 'bridge', plugins: [{ type: 'bridge' }, { type: 'portmap' }] };
const args = { containerId: 'c1', netns: '/var/run/netns/x', ifname: 'eth0' };
const RESULT = { cniVersion: '1.0.0', interfaces: [{ name: 'eth0' }], ips: [{ address: '10.0.0.2/24' }] };

let calls: string[];
afterEach(() => jest.restoreAllMocks());

/** spawner.run replaced: each call noted as "COMMAND type idempotent", `lose` says which calls are lost. */
function fakeRun(lose: (call: string, n: number) => boolean) {
  calls = [];
  jest.spyOn(spawner, 'run').mockImplementation(async (file: string, _args: string[], opts: RunOptions = {}) => {
    const call = `${opts.env!.CNI_COMMAND} ${file.split('/').pop()} ${!!opts.idempotent}`;
    calls.push(call);
    if (lose(call, calls.length)) throw new CommandLost(file, true);
    return { stdout: opts.env!.CNI_COMMAND === 'ADD' ? JSON.stringify(RESULT) : '', stderr: '' };
  });
}

test('an ADD lost once: DEL of the list (reverse order, idempotent), then the ADD again', async () => {
  fakeRun((_c, n) => n === 2); // the portmap ADD
  expect(await addNetworkList(list, args)).toEqual(RESULT);
  expect(calls).toEqual(['ADD bridge false', 'ADD portmap false', 'DEL portmap true', 'DEL bridge true', 'ADD bridge false', 'ADD portmap false']);
});

test('an ADD lost twice fails with the reason, after one DEL', async () => {
  fakeRun((c) => c.startsWith('ADD bridge'));
  await expect(addNetworkList(list, args)).rejects.toThrow(/^CNI bridge ADD failed: the command helper died while \S+bridge ran: whether it did its work is not known$/);
  expect(calls).toEqual(['ADD bridge false', 'DEL portmap true', 'DEL bridge true', 'ADD bridge false']);
});

test('an ADD that failed otherwise is not run again', async () => {
  calls = [];
  jest.spyOn(spawner, 'run').mockImplementation(async (file: string, _a: string[], opts: RunOptions = {}) => {
    calls.push(`${opts.env!.CNI_COMMAND} ${file.split('/').pop()}`);
    throw new Error('exit 1');
  });
  await expect(addNetworkList(list, args)).rejects.toThrow('CNI bridge ADD failed: exit 1');
  expect(calls).toEqual(['ADD bridge']);
});
