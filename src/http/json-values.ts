/** Values the API sends as JSON, which has no bigint: times as ISO 8601 text, ids (which may pass 2^53) as decimal text. */

export function isoOfMicros(micros: bigint | undefined | null): string | null {
  return micros === undefined || micros === null ? null : new Date(Number(micros / 1000n)).toISOString();
}

export function idText(id: bigint | undefined | null): string | null {
  return id === undefined || id === null ? null : id.toString();
}
