import { INestApplication } from '@nestjs/common';
import { connect } from 'node:net';
import { AddressInfo } from 'node:net';
import { VALID } from './helpers/bodies';
import { depreciate, send } from './helpers/http';
import { createTestApp, listenTestApp } from './helpers/test-app';

/** Writes raw bytes on a fresh connection and reads everything until the server closes it. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('HTTP edges (e2e)', () => {
  let app: INestApplication;
  let port: number;

  beforeEach(async () => {
    ({ app, port } = await listenTestApp());
  });

  afterEach(() => app.close());

  it('answers a request Node cannot parse with the JSON error body, not a bare status line', async () => {
    const answer = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('Content-Type: application/json');
    expect(answer.endsWith('\r\n\r\n{"statusCode":400,"message":"Invalid input parameters"}')).toBe(
      true,
    );
  });

  it('answers headers over the size limit with 431 and the JSON body', async () => {
    const answer = await raw(
      port,
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('{"statusCode":431,"message":"Request Header Fields Too Large"}');
  });

  it('ignores forwarding headers: forged addresses do not get a new budget', async () => {
    const forged = (header: string, value: string) =>
      send({
        port,
        method: 'POST',
        path: '/api/depreciate',
        headers: { 'content-type': 'application/json', [header]: value },
        body: JSON.stringify(VALID),
      });
    await forged('x-forwarded-for', '203.0.113.1');
    await forged('x-real-ip', '203.0.113.2');
    const last = await forged('forwarded', 'for=203.0.113.3');
    expect(last.headers['x-ratelimit-remaining']).toBe('97');
    expect((await depreciate(port)).headers['x-ratelimit-remaining']).toBe('96');
  });

  it('counts an IPv4 client reached over IPv6 (IPv4-mapped) as its IPv4 address', async () => {
    await app.close();
    app = await createTestApp();
    await app.listen(0, '::');
    port = (app.getHttpServer().address() as AddressInfo).port;
    // On a dual-stack socket, 127.0.0.1 arrives as ::ffff:127.0.0.1.
    const first = await depreciate(port, { from: '127.0.0.1' });
    const second = await send({
      port,
      host: '::ffff:127.0.0.1',
      method: 'POST',
      path: '/api/depreciate',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(VALID),
    });
    expect([
      first.headers['x-ratelimit-remaining'],
      second.headers['x-ratelimit-remaining'],
    ]).toEqual(['99', '98']);
  });
});
