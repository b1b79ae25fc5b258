import { openWarehouse } from '../../../src/lake/index.js';

/** Opens the warehouse at argv[2], says `start`, adds the primary key (id) of public.t, says `done`: killed somewhere in between. */
const wh = await openWarehouse({ path: process.argv[2]! });
process.stdout.write('start\n');
await wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['id'] });
process.stdout.write('done\n');
await wh.close();
