import { once } from 'node:events';
import { AddressInfo, createServer, Server } from 'node:net';
import { explainListenError, type ListenSettings } from './listen-error';
import { StartupRefusal } from './startup-refusal';

/** The error Node gives a listener on `host`:`port`. */
async function listenError(host: string, port: number): Promise<unknown> {
  const server = createServer().listen(port, host);
  const [error] = (await once(server, 'error')) as unknown[];
  return error;
}

const PUBLIC = { prefix: '' } as const;
const METRICS = { prefix: 'METRICS_' } as const;
const at = (host: string, port: number, variables: Pick<ListenSettings, 'prefix'> = PUBLIC) => ({
  host,
  port,
  ...variables,
});

describe('explainListenError', () => {
  const servers: Server[] = [];
  const taken = async (host: string): Promise<number> => {
    const server = createServer().listen(0, host);
    servers.push(server);
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };

  afterAll(() => servers.forEach((server) => server.close()));

  it('turns a taken port into one line naming the variable, the address and the port', async () => {
    const port = await taken('127.0.0.1');
    const error = await listenError('127.0.0.1', port);
    const explained = explainListenError(error, at('127.0.0.1', port, METRICS));
    expect(explained).toBeInstanceOf(StartupRefusal);
    expect(explained).toEqual(
      new Error(`Cannot listen on 127.0.0.1:${port} (METRICS_PORT): address already in use`),
    );
  });

  it('writes an IPv6 address in brackets', async () => {
    const port = await taken('::1');
    expect(explainListenError(await listenError('::1', port), at('::1', port))).toEqual(
      new Error(`Cannot listen on [::1]:${port} (PORT): address already in use`),
    );
  });

  it('says a port the process may not take is denied', () => {
    const denied = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), {
      syscall: 'listen',
      code: 'EACCES',
      address: '0.0.0.0',
      port: 80,
    });
    expect(explainListenError(denied, at('0.0.0.0', 80))).toEqual(
      new Error('Cannot listen on 0.0.0.0:80 (PORT): permission denied'),
    );
  });

  // Binding sends nothing: 10.9.9.9 is only asked of the kernel, which has no such address here.
  it('names the host variable for an address this machine does not have or refuses', async () => {
    const missing = explainListenError(await listenError('10.9.9.9', 0), at('10.9.9.9', 3000));
    expect(missing).toBeInstanceOf(StartupRefusal);
    expect(missing).toEqual(
      new Error(
        "Cannot listen on 10.9.9.9:3000 (HOST): address not available: none of this machine's interfaces has it",
      ),
    );
    const linkLocal = await listenError('fe80::1', 0);
    expect(explainListenError(linkLocal, at('fe80::1', 9464, METRICS))).toEqual(
      new Error(
        'Cannot listen on [fe80::1]:9464 (METRICS_HOST): the system refuses this address (EINVAL): a link-local address needs its interface, e.g. fe80::1%eth0',
      ),
    );
  });

  it('names the host variable for a host name that does not resolve', () => {
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND nonexistent.invalid'), {
      syscall: 'getaddrinfo',
      code: 'ENOTFOUND',
      hostname: 'nonexistent.invalid',
    });
    expect(explainListenError(lookup, at('nonexistent.invalid', 3000))).toEqual(
      new StartupRefusal(
        'Cannot listen on nonexistent.invalid:3000 (HOST): the host name cannot be resolved (ENOTFOUND)',
      ),
    );
  });

  it('leaves any other error as it is, for its stack', () => {
    const tooMany = Object.assign(new Error('listen EMFILE'), {
      syscall: 'listen',
      code: 'EMFILE',
    });
    const other = new TypeError('boom');
    expect(explainListenError(tooMany, at('0.0.0.0', 3000))).toBe(tooMany);
    expect(explainListenError(other, at('0.0.0.0', 3000))).toBe(other);
    expect(explainListenError(undefined, at('0.0.0.0', 3000))).toBeUndefined();
  });
});
