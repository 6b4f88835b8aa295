// The images the golden tests of images, volumes and networks start from, built the same way for the reference
// engine (scripts/capture-golden-objects.sh) and for berth, so that their ids, sizes, dates and configs match:
// berth's test busybox as g2-bb:latest, and the same with a label (a second image id) as g2-lbl:latest.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestBerth } from './berth';
import { buildBusyboxImage, loadBusybox } from './busybox-image';

export const GOLDEN_IMAGES = [
  { tag: 'g2-bb:latest', opts: {} },
  { tag: 'g2-lbl:latest', opts: { config: { Labels: { g2: 'yes' } } } },
];

export async function loadGoldenImages(b: TestBerth): Promise<void> {
  for (const i of GOLDEN_IMAGES) await loadBusybox(b, i.tag, i.opts);
}

// node dist/test/helpers/golden-objects.js <dir>: writes one docker-save archive per image, for `docker load -i`.
if (require.main === module) {
  const dir = process.argv[2] ?? '.';
  void (async () => {
    for (const i of GOLDEN_IMAGES) {
      const file = path.join(dir, `${i.tag.replace(/[:/]/g, '-')}.tar`);
      fs.writeFileSync(file, await buildBusyboxImage({ ...i.opts, tags: [i.tag] }));
      console.log(file);
    }
  })();
}
