/** Which older row round i of append-writer-child.ts deletes, and which it updates (never the same, never twice). */
export function deletedAt(round: number): number | undefined {
  const id = round * 5 - 13;
  return id >= 0 ? id : undefined;
}

export function updatedAt(round: number): number | undefined {
  const id = round * 5 - 21;
  return id >= 0 ? id : undefined;
}
