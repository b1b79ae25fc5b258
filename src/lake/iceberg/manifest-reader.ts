import type { Storage } from '../storage/storage.js';
import { decodeAvroContainer } from './avro-container.js';

/** What a live file's entry said, with inherited values filled in: an EXISTING entry must repeat them. */
export interface LiveFileNumbers {
  readonly snapshotId: bigint;
  readonly sequenceNumber: bigint;
  readonly fileSequenceNumber: bigint;
}

interface ManifestFileRecord { manifest_path: string; sequence_number: bigint; added_snapshot_id: bigint }
interface ManifestEntryRecord {
  status: number;
  snapshot_id: bigint | null;
  sequence_number: bigint | null;
  file_sequence_number: bigint | null;
  data_file: { file_path: string };
}

/**
 * The live (not DELETED) data files of a snapshot this exporter wrote, by file URI. Its
 * manifests sit in the same metadata directory as its manifest list, so each is read by its
 * name there (`keyOf`).
 */
export async function readLiveFiles(storage: Storage, manifestListKey: string, keyOf: (uri: string) => string): Promise<Map<string, LiveFileNumbers>> {
  const out = new Map<string, LiveFileNumbers>();
  const manifests = await decodeAvroContainer(await storage.get(manifestListKey)) as ManifestFileRecord[];
  for (const m of manifests) {
    const entries = await decodeAvroContainer(await storage.get(keyOf(m.manifest_path))) as ManifestEntryRecord[];
    for (const e of entries) {
      if (e.status === 2) continue;
      out.set(e.data_file.file_path, {
        snapshotId: e.snapshot_id ?? m.added_snapshot_id,
        sequenceNumber: e.sequence_number ?? m.sequence_number,
        fileSequenceNumber: e.file_sequence_number ?? m.sequence_number,
      });
    }
  }
  return out;
}
