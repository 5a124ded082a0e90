import { toErrorBody } from '../common/error-body';

/**
 * What a client gets for the exception `act` throws: its class, and the error body the exception
 * filter answers with. Throws if `act` throws nothing.
 */
export function errorBodyOf(
  act: () => unknown,
): ReturnType<typeof toErrorBody> & { thrown: string } {
  try {
    act();
  } catch (error) {
    return { thrown: (error as Error).constructor.name, ...toErrorBody(error) };
  }
  throw new Error('Nothing was thrown');
}
