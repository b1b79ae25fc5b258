// Preloaded into Kysely's mocha run by run-kysely.sh: Kysely's test setup connects with
// constants (localhost:5434, kysely/kysely, kysely_test); this points every pg Client and
// Pool it makes at 127.0.0.1:$FLOE_KYSELY_PORT instead, without touching the checkout.
'use strict';
const pg = require(require.resolve('pg', { paths: [process.cwd()] }));
const port = Number(process.env.FLOE_KYSELY_PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error('FLOE_KYSELY_PORT must name the server under test');
const target = { host: '127.0.0.1', port };
const redirect = (config) => (typeof config === 'object' && config !== null ? { ...config, ...target } : { ...target });
const { Client, Pool } = pg;
pg.Client = class RedirectedClient extends Client { constructor(config) { super(redirect(config)); } };
pg.Pool = class RedirectedPool extends Pool { constructor(config) { super(redirect(config)); } };
