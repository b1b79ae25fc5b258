// pg-cursor ships no types and @types/pg-cursor is not installed: the little this suite uses.
declare module 'pg-cursor' {
  import type { Submittable } from 'pg';
  export default class Cursor implements Submittable {
    constructor(text: string, values?: unknown[]);
    submit: Submittable['submit'];
    read(rows: number): Promise<unknown[]>;
    close(): Promise<void>;
  }
}
