/** Which kinds of change a publication sends (PostgreSQL's `publish` option). */
export interface PublishedActions {
  readonly insert: boolean;
  readonly update: boolean;
  readonly delete: boolean;
  readonly truncate: boolean;
}

/** CREATE PUBLICATION's record: a name, FOR ALL TABLES or a list of tables, and what it publishes. */
export interface PublicationMetadata {
  /** pg_publication.oid: taken from the relation-id counter, so it meets no table's. */
  readonly oid: number;
  readonly name: string;
  readonly allTables: boolean;
  readonly publish: PublishedActions;
  /** FOR TABLE members by table id (empty for FOR ALL TABLES); dropped tables are left out when read. */
  readonly tableIds: readonly number[];
}

export interface NewPublication {
  readonly name: string;
  readonly allTables: boolean;
  readonly publish: PublishedActions;
  readonly tableIds: readonly number[];
}
