// The cgroup v1 reader's parts that need no container: blkio lines as containerd's readEntry reads them, and a
// process it cannot read (the stats service then asks containerd).
import { CgroupV1Reader, parseBlkio } from '../../src/runtime/cgroup-metrics';

test('blkio files: op lines, op-less lines (sectors, time), the Total line left out', () => {
  expect(parseBlkio('8:0 Read 4096\n8:0 Write 512\n8:16 Sync 7\nTotal 4615\n')).toEqual([
    { op: 'Read', device: '', major: '8', minor: '0', value: '4096' },
    { op: 'Write', device: '', major: '8', minor: '0', value: '512' },
    { op: 'Sync', device: '', major: '8', minor: '16', value: '7' },
  ]);
  expect(parseBlkio('253:1 12\n')).toEqual([{ op: '', device: '', major: '253', minor: '1', value: '12' }]);
  expect(parseBlkio('Total 0\n')).toEqual([]);
  expect(() => parseBlkio('8:0\n')).toThrow(/invalid blkio line/);
  // figures the kernel would not print so (leading zeros, hex) read as a uint64 parse reads them; text that is no number fails
  expect(parseBlkio('8:0 Write 0012\n253:1 0x10\n')).toEqual([
    { op: 'Write', device: '', major: '8', minor: '0', value: '12' },
    { op: '', device: '', major: '253', minor: '1', value: '16' },
  ]);
  expect(() => parseBlkio('8:0 Read 12a\n')).toThrow();
});

test('no process, or one that is gone: undefined (containerd is asked instead)', () => {
  const r = new CgroupV1Reader();
  expect(r.metrics('c', 0)).toBeUndefined();
  expect(r.metrics('c', 2 ** 22 + 12345)).toBeUndefined();
});
