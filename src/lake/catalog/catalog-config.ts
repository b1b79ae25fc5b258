/** Which catalog database holds the metadata. */
export type CatalogConfig =
  | { readonly kind: 'sqlite'; /** default <warehouse>/catalog.db */ readonly path?: string };
