import { Migration20261122000000_initial } from './Migration20261122000000_initial.js';

/** Every migration, in order. Append only. */
export const migrationsList = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
];
