import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { RelationComment, ViewDefinition, ViewMetadata } from '../table/view-metadata.js';
import type { SqlCatalogAccess } from './sql-sequences.js';

/**
 * Views and comments in the catalog. A view row holds its SELECT text, output
 * columns, creation search_path, direct dependencies and options (JSON). Comments are keyed as
 * pg_description is: object id and sub id (a column's attnum, 0 for the relation).
 */
interface ViewRow {
  view_id: bigint; namespace: string; name: string; definition: string; columns: string; search_path: string; depends_on: string; options: string;
}

function toView(r: ViewRow): ViewMetadata {
  return {
    id: Number(r.view_id), namespace: r.namespace, name: r.name, definition: r.definition,
    columns: JSON.parse(r.columns), searchPath: JSON.parse(r.search_path), dependsOn: JSON.parse(r.depends_on),
    ...(r.options === '[]' ? {} : { options: JSON.parse(r.options) }),
  };
}

export class SqlViews {
  readonly #c: SqlCatalogAccess;

  constructor(access: SqlCatalogAccess) {
    this.#c = access;
  }

  get(namespace: string, name: string): ViewMetadata | undefined {
    return this.#c.cached(`view ${JSON.stringify([namespace, name])}`, () => {
      const r = this.#c.sql('SELECT * FROM views WHERE namespace = ? AND name = ?').get(namespace, name) as ViewRow | undefined;
      return r === undefined ? undefined : toView(r);
    });
  }

  getById(id: number): ViewMetadata | undefined {
    return this.#c.cached(`view ${id}`, () => {
      const r = this.#c.sql('SELECT * FROM views WHERE view_id = ?').get(id) as ViewRow | undefined;
      return r === undefined ? undefined : toView(r);
    });
  }

  list(namespace?: string): ViewMetadata[] {
    return this.#c.cached(`views ${namespace ?? ''}`, () => {
      const rows = (namespace === undefined
        ? this.#c.sql('SELECT * FROM views ORDER BY view_id').all()
        : this.#c.sql('SELECT * FROM views WHERE namespace = ? ORDER BY view_id').all(namespace)) as ViewRow[];
      return rows.map(toView);
    });
  }

  /** A new view (the caller checked the name is free), or the replacement of `replaceId`'s definition. */
  put(v: ViewDefinition, replaceId: number | undefined): ViewMetadata {
    const id = replaceId ?? this.#c.nextId();
    const cols = JSON.stringify(v.columns);
    // A replacement's options are the new ones (none if it gives none), as PostgreSQL's CREATE OR REPLACE VIEW sets them.
    const options = JSON.stringify(v.options ?? []);
    if (replaceId === undefined) {
      this.#c.sql('INSERT INTO views (view_id, namespace, name, definition, columns, search_path, depends_on, options) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(id, v.namespace, v.name, v.definition, cols, JSON.stringify(v.searchPath), JSON.stringify(v.dependsOn), options);
    } else {
      this.#c.sql('UPDATE views SET definition = ?, columns = ?, search_path = ?, depends_on = ?, options = ? WHERE view_id = ?')
        .run(v.definition, cols, JSON.stringify(v.searchPath), JSON.stringify(v.dependsOn), options, id);
    }
    return this.getById(id)!;
  }

  move(id: number, to: { namespace: string; name: string }): void {
    this.#c.sql('UPDATE views SET namespace = ?, name = ? WHERE view_id = ?').run(to.namespace, to.name, id);
  }

  drop(id: number): void {
    if (this.getById(id) === undefined) throw new FloeError(SqlState.undefinedTable, `view ${id} does not exist`);
    this.#c.sql('DELETE FROM views WHERE view_id = ?').run(id);
    this.#c.sql("DELETE FROM object_acls WHERE object_kind = 'relation' AND object_key = ?").run(String(id));
    this.dropComments(id);
  }

  dropInNamespace(namespace: string): void {
    for (const v of this.list(namespace)) this.dropComments(v.id);
    this.#c.sql('DELETE FROM views WHERE namespace = ?').run(namespace);
  }

  setComment(objectId: number, subId: number, description: string | null): void {
    if (description === null || description === '') {
      this.#c.sql('DELETE FROM comments WHERE object_id = ? AND sub_id = ?').run(objectId, subId);
    } else {
      this.#c.sql('INSERT INTO comments VALUES (?, ?, ?) ON CONFLICT (object_id, sub_id) DO UPDATE SET description = excluded.description')
        .run(objectId, subId, description);
    }
  }

  comments(): RelationComment[] {
    return this.#c.cached('comments', () => (this.#c.sql('SELECT * FROM comments ORDER BY object_id, sub_id').all() as
      { object_id: bigint; sub_id: bigint; description: string }[])
      .map((r) => ({ objectId: Number(r.object_id), subId: Number(r.sub_id), description: r.description })));
  }

  dropComments(objectId: number): void {
    this.#c.sql('DELETE FROM comments WHERE object_id = ?').run(objectId);
  }
}
