import { FloeError } from '../../common/floe-error.js';
import { formatTimetz, parseTimetz, timetzFromBinaryParts, unpackTimetz } from '../../common/timetz.js';
import type { CodecContext } from './codec-context.js';
import type { TypeCodec } from './type-codec.js';

/** time with time zone: text `10:00:00+02`; binary int64 microseconds, then int32 zone in seconds west of UTC. */
export const timetzCodec: TypeCodec = {
  oid: 1266,
  name: 'time with time zone',
  encodeText: (v) => formatTimetz(packedOf(v)),
  encodeBinary: (v) => {
    const { micros, zoneWest } = unpackTimetz(packedOf(v));
    const b = Buffer.alloc(12);
    b.writeBigInt64BE(micros, 0);
    b.writeInt32BE(zoneWest, 8);
    return b;
  },
  decodeText: (t, ctx: CodecContext) => parseTimetz(t, ctx.timeZone),
  decodeBinary: (b) => {
    if (b.length !== 12) throw new FloeError('22P03', 'incorrect binary data format for type time with time zone');
    return timetzFromBinaryParts(b.readBigInt64BE(0), b.readInt32BE(8));
  },
};

function packedOf(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  throw new FloeError('XX000', `cannot encode ${typeof v} as time with time zone`);
}
