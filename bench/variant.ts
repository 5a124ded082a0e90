import 'reflect-metadata';
import { additionsNamed, assembleVariant } from './assemble';

/**
 * The service without the additions named in its arguments (bench/assemble.ts), for the ablation
 * (bench/ablation.ts): `node dist-bench/bench/variant.js request-log metrics`. No argument: the
 * whole service, assembled from the same steps as main.ts's. PORT and HOST as for the service.
 */
void assembleVariant(additionsNamed(process.argv.slice(2))).then((app) =>
  app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1'),
);
