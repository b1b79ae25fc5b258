import { FloeError } from '../../common/floe-error.js';
import { formatType } from '../../common/sql-type.js';
import type { ViewMetadata } from './view-metadata.js';

/**
 * CREATE OR REPLACE VIEW keeps the existing columns, by name and type, in order; it
 * may only add columns at the end (PostgreSQL's checkViewTupleDesc, SQLSTATE 42P16).
 */
export function checkViewReplacement(old: ViewMetadata, columns: ViewMetadata['columns']): void {
  if (columns.length < old.columns.length) throw new FloeError('42P16', 'cannot drop columns from view');
  old.columns.forEach((was, i) => {
    const now = columns[i]!;
    if (now.name !== was.name) {
      throw new FloeError('42P16', `cannot change name of view column "${was.name}" to "${now.name}"`, {
        hint: 'Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.',
      });
    }
    if (formatType(now.type) !== formatType(was.type)) {
      throw new FloeError('42P16', `cannot change data type of view column "${was.name}" from ${formatType(was.type)} to ${formatType(now.type)}`);
    }
  });
}
