/**
 * `npm start`'s entry (`node dist/src/main.js`, the image's command). It turns on Node's compile
 * cache (Node 22.1 and later; `os.tmpdir()/node-compile-cache`, or where NODE_COMPILE_CACHE says;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off): a start after the first reuses the compiled code of
 * cronql's several hundred modules instead of compiling them again. A static import would be
 * compiled before this line runs, hence the dynamic one. Where the cache cannot be written (a
 * read-only filesystem) Node reports it in the returned status and starts as without it.
 */
import * as nodeModule from 'node:module';

nodeModule.enableCompileCache?.();
await import('./serve.js');
