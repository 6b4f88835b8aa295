// One test berth with the busybox image for a whole test file: registers beforeAll/afterAll, returns a getter.
import { startTestBerth, TestBerth } from './berth';
import { loadBusybox } from './busybox-image';

export function berthWithBusybox(): () => TestBerth {
  let b: TestBerth | undefined;
  beforeAll(async () => {
    b = await startTestBerth();
    await loadBusybox(b);
  });
  afterAll(async () => {
    await b?.close();
  });
  return () => {
    if (!b) throw new Error('test berth not started');
    return b;
  };
}
