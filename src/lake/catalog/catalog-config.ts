/** Which catalog database holds the metadata. */
export type CatalogConfig =
  | { readonly kind: 'sqlite'; /** default <warehouse>/catalog.db */ readonly path?: string }
  /** Shared by every gateway and optimizer of the warehouse (postgres/postgres-catalog.ts). */
  | { readonly kind: 'postgres'; readonly url: string; /** default floe_catalog */ readonly schema?: string };
