// The payload of a multiplexed (stdcopy) stream as a logs client reads it, shared by bench:streams and bench:capture.
import type * as http from 'node:http';

/** Payload bytes of a multiplexed stream (8-byte frame headers stripped), until it ends. Offsets, not
 *  subarrays: the client must not be the bottleneck. */
export function countFramed(res: http.IncomingMessage): Promise<number> {
  return new Promise((resolve, reject) => {
    const header = Buffer.alloc(8);
    let have = 0; // header bytes collected
    let need = 0; // payload bytes still to skip
    let total = 0;
    res.on('data', (c: Buffer) => {
      let i = 0;
      while (i < c.length) {
        if (need === 0 && have === 0 && i + 8 <= c.length) {
          // a whole header in this chunk: read at once (a 63-byte entry's frame costs one step, not nine)
          need = c.readUInt32BE(i + 4);
          i += 8;
          continue;
        }
        if (need > 0) {
          const take = Math.min(need, c.length - i);
          total += take;
          need -= take;
          i += take;
          continue;
        }
        header[have++] = c[i++];
        if (have === 8) {
          need = header.readUInt32BE(4);
          have = 0;
        }
      }
    });
    res.on('end', () => resolve(total));
    res.on('error', reject);
  });
}
