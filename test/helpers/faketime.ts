/**
 * Debian's libfaketime, preloaded the way `faketime` does it (ld.so expands `$LIB`), but without
 * faketime's fork, which would outlive the SIGTERM that stops the server.
 */
export const LIBFAKETIME = '/usr/$LIB/faketime/libfaketime.so.1';
