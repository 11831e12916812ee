/**
 * The tracing benchmark's collector stand-in, in a process of its own (decoding 30,000 spans must
 * not load the event loop it measures): the test suite's OTLP receiver, counting spans. Speaks
 * over IPC: sends `{ endpoint }` once listening; answers `'count'` with `{ count, distinct, requests }`
 * (`distinct`: by trace and span id — a batch the exporter sent again after a timed-out attempt counts once);
 * exits on `'stop'`.
 */
import { startOtlpReceiver } from '../../test/support/otlp-receiver.js';

const receiver = await startOtlpReceiver({ countOnly: true });
process.send!({ endpoint: receiver.endpoint });
process.on('message', (m) => {
  if (m === 'count') process.send!({ count: receiver.count, distinct: receiver.distinct, requests: receiver.requests });
  if (m === 'stop') void receiver.close().then(() => process.exit(0));
});
