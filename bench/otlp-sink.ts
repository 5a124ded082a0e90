import { createServer } from 'node:http';

/**
 * An OTLP/HTTP receiver that reads each export whole and accepts it (an empty
 * ExportTraceServiceResponse), for bench/tracing.ts: the service's cost of sending, not a
 * collector's of storing. Its PORT is given; it runs on the load generator's core.
 */
let exported = 0;
createServer((request, response) => {
  let bytes = 0;
  request.on('data', (chunk: Buffer) => (bytes += chunk.length));
  request.on('end', () => {
    exported += bytes > 0 ? 1 : 0;
    response.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  process.stderr.write(`exports received: ${exported}\n`);
  process.exit(0);
});
