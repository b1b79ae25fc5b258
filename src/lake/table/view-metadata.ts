import type { SqlType } from '../../common/sql-type.js';

/**
 * A view: the SELECT as written and the columns it was created with. The lake keeps
 * the text, not a plan: SQL binds it again at every use, so it follows the tables it
 * reads. Views share the relation namespace and id counter of tables and sequences.
 */
export interface ViewMetadata {
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  /** The query after AS, exactly as the client wrote it (time travel and branch names included). */
  readonly definition: string;
  /** Output columns, named by the column list when one was given. */
  readonly columns: readonly { readonly name: string; readonly type: SqlType }[];
  /** search_path when the view was created: unqualified names in the definition resolve through it. */
  readonly searchPath: readonly string[];
  /** Relations (tables, views) the definition reads directly, by id. */
  readonly dependsOn: readonly number[];
  /**
   * Options as pg_class.reloptions shows them (`security_barrier=true`), in the order set;
   * the SQL layer checks them and gives them meaning. None when absent.
   */
  readonly options?: readonly string[];
}

export type ViewDefinition = Omit<ViewMetadata, 'id'>;

/** COMMENT ON: a relation's (subId 0) or one of its columns' (subId = attnum) description. */
export interface RelationComment {
  readonly objectId: number;
  readonly subId: number;
  readonly description: string;
}
