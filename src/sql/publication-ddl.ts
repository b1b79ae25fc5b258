import type { PublishedActions } from '../lake/index.js';
import type { TableName } from './ddl-command.js';

/** A table a publication statement names: where search_path found it, and as written (for messages). */
export interface PublicationTableRef {
  readonly table: TableName;
  readonly written: string;
}

/** CREATE / ALTER / DROP PUBLICATION, bound; the session checks the tables and runs them. */
export type PublicationDdl =
  | {
      readonly kind: 'createPublication';
      readonly name: string;
      readonly allTables: boolean;
      readonly tables: readonly PublicationTableRef[];
      readonly publish: PublishedActions;
    }
  | {
      readonly kind: 'alterPublication';
      readonly name: string;
      /** ADD / DROP / SET TABLE, or SET (publish = …) alone. */
      readonly action: 'add' | 'drop' | 'set' | 'options';
      readonly tables: readonly PublicationTableRef[];
      readonly publish?: PublishedActions;
    }
  | { readonly kind: 'dropPublication'; readonly names: readonly string[]; readonly ifExists: boolean };
