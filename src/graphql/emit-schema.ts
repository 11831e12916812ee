import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { cronqlSchema, printCronqlSchema, SCHEMA_FILE } from './schema.js';

/** `npm run schema`: writes the SDL of the code to schema/schema.graphql (run from the package root). */
const file = resolve(process.cwd(), SCHEMA_FILE);
await mkdir(dirname(file), { recursive: true });
await writeFile(file, printCronqlSchema(await cronqlSchema()));
console.log(`wrote ${SCHEMA_FILE}`);
