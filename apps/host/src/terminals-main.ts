import { parentPort } from 'node:worker_threads';
import { serveTerminals } from './terminal-thread';

// The terminals' thread of paneflow-host (terminals.ts), a bundle of its own so that the thread
// loads only what parses: the host starts it from beside its own bundle.
if (!parentPort) {
  process.stderr.write("paneflow-host-terminals runs only as paneflow-host's thread\n");
  process.exit(2);
}
serveTerminals(parentPort);
