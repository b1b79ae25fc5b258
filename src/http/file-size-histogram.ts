import type { DataFileInfo } from '../lake/index.js';

/** Upper bounds of the size classes: small files (the optimizer's work) apart from the 128 MB target. */
const BOUNDS = [64 * 1024, 1024 * 1024, 8 * 1024 * 1024, 32 * 1024 * 1024, 128 * 1024 * 1024, 512 * 1024 * 1024] as const;

/** One size class of one store: files of at most `upToBytes` (null: larger than every bound) and above the class before. */
export interface FileSizeClass {
  readonly store: DataFileInfo['store'];
  readonly upToBytes: number | null;
  readonly files: number;
  readonly bytes: number;
}

/** Files by store and size class, every class listed (empty ones too, so a chart's axis is fixed). */
export function fileSizeHistogram(files: readonly DataFileInfo[]): FileSizeClass[] {
  const classes = (['change', 'base'] as const).flatMap((store) =>
    [...BOUNDS, null].map((upToBytes) => ({ store, upToBytes, files: 0, bytes: 0 })));
  for (const f of files) {
    const i = BOUNDS.findIndex((b) => f.sizeBytes <= b);
    const c = classes[(f.store === 'change' ? 0 : BOUNDS.length + 1) + (i < 0 ? BOUNDS.length : i)]!;
    c.files++;
    c.bytes += f.sizeBytes;
  }
  return classes;
}
