import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { tableReadAccess, type TableMetadata, type Warehouse } from '../../lake/index.js';
import { principalOf } from './principal-of.js';
import { IcebergRestError } from '../iceberg-rest-error.js';

interface NamespaceParams {
  readonly namespace: string;
}

interface TableParams extends NamespaceParams {
  readonly table: string;
}

/** Multi-level namespaces travel as their levels joined by the unit separator (the spec's encoding). */
const LEVEL_SEPARATOR = '\u001f';

/**
 * The read-only Iceberg REST catalog (the spec's `/v1/...` under the server's `/iceberg`
 * prefix): config, namespaces, tables and loadTable, answered from the Iceberg metadata
 * the metadata service writes beside each table's base store (src/lake/iceberg). Floe's
 * schemas are the namespaces, one level deep. Writes (create, commit, drop, rename) answer
 * 406, UnsupportedOperationException: tables change through the wire.
 */
export function registerIcebergRestRoutes(app: FastifyInstance, warehouse: Warehouse): void {
  app.get('/v1/config', async () => ({ defaults: {}, overrides: {} }));

  app.get<{ Querystring: { parent?: string } }>('/v1/namespaces', async (request) => {
    const parent = request.query.parent;
    // One level deep: a namespace has no children, and an unknown parent is an error.
    if (parent !== undefined) {
      namespaceOf(warehouse, parent);
      return { namespaces: [] };
    }
    return { namespaces: warehouse.listNamespaces().map((n) => [n]) };
  });
  app.route<{ Params: NamespaceParams }>({
    method: ['GET', 'HEAD'], url: '/v1/namespaces/:namespace',
    handler: async (request, reply) => {
      const namespace = namespaceOf(warehouse, request.params.namespace);
      if (request.method === 'HEAD') return reply.code(204).send();
      return { namespace: [namespace], properties: {} };
    },
  });
  app.get<{ Params: NamespaceParams }>('/v1/namespaces/:namespace/tables', async (request) => {
    const namespace = namespaceOf(warehouse, request.params.namespace);
    // Only what the caller may read, as information_schema.tables lists only what the role may use.
    const user = principalOf(request).user;
    const visible = warehouse.listTables(namespace).filter((t) => tableReadAccess(warehouse, user, t) !== 'denied');
    return { identifiers: visible.map((t) => ({ namespace: [namespace], name: t.name })) };
  });
  app.route<{ Params: TableParams }>({
    method: ['GET', 'HEAD'], url: '/v1/namespaces/:namespace/tables/:table',
    handler: async (request, reply) => {
      const table = tableOf(warehouse, request.params);
      checkReadable(warehouse, principalOf(request).user, table);
      if (request.method === 'HEAD') return reply.code(204).send();
      const loaded = await warehouse.loadIcebergTable(table);
      if (loaded === undefined) {
        throw new IcebergRestError(404, 'NoSuchTableException', `Table has no Iceberg metadata yet: ${table.namespace}.${table.name} (a gateway writes it within seconds of a commit, unless started with --no-iceberg-metadata)`);
      }
      // From the location and the contents (two racing exporters may each write a vN): a
      // conditional GET of an unchanged table answers 304 without the body.
      const etag = `"${createHash('sha256').update(loaded.metadataLocation).update(JSON.stringify(loaded.metadata)).digest('base64url')}"`;
      void reply.header('ETag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return { 'metadata-location': loaded.metadataLocation, metadata: loaded.metadata, config: {} };
    },
  });

  const readOnly = async () => {
    throw new IcebergRestError(406, 'UnsupportedOperationException', 'This catalog is read-only: change Floe tables through SQL');
  };
  app.route({ method: ['POST', 'DELETE'], url: '/v1/namespaces', handler: readOnly });
  for (const url of ['/v1/namespaces/:namespace', '/v1/namespaces/:namespace/properties', '/v1/namespaces/:namespace/tables', '/v1/namespaces/:namespace/tables/:table', '/v1/namespaces/:namespace/register', '/v1/tables/rename', '/v1/transactions/commit']) {
    app.route({ method: ['POST', 'DELETE'], url, handler: readOnly });
  }
}

/**
 * Loading a table hands out its files: the caller needs SELECT on it (and USAGE on its
 * schema), and a table whose row-level security applies to the caller is refused outright,
 * since no policy can filter a file.
 */
function checkReadable(warehouse: Warehouse, user: string, table: TableMetadata): void {
  switch (tableReadAccess(warehouse, user, table)) {
    case 'allowed': return;
    case 'denied': throw new IcebergRestError(403, 'ForbiddenException', `permission denied for table ${table.name}`);
    case 'rowSecurity':
      throw new IcebergRestError(403, 'ForbiddenException', `table ${table.namespace}.${table.name} has row-level security for user "${user}": read it through SQL, where the policies apply`);
  }
}

function namespaceOf(warehouse: Warehouse, encoded: string): string {
  if (!encoded.includes(LEVEL_SEPARATOR) && warehouse.listNamespaces().includes(encoded)) return encoded;
  throw new IcebergRestError(404, 'NoSuchNamespaceException', `Namespace does not exist: ${encoded.split(LEVEL_SEPARATOR).join('.')}`);
}

function tableOf(warehouse: Warehouse, params: TableParams): TableMetadata {
  const namespace = namespaceOf(warehouse, params.namespace);
  const table = warehouse.getTable(namespace, params.table);
  if (table === undefined) throw new IcebergRestError(404, 'NoSuchTableException', `Table does not exist: ${namespace}.${params.table}`);
  return table;
}
